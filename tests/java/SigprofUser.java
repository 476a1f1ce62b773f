/*
 * A program with its own SIGPROF handler and ITIMER_PROF timer (through JNI): it must run
 * as it does without the agent (its handler counts its timer's signals).
 */
public class SigprofUser {
    static native boolean install();
    static native int handled();
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        System.load(args[0]);
        long ms = args.length > 1 ? Long.parseLong(args[1]) : 1000;
        if (!install()) throw new IllegalStateException("no SIGPROF handler");
        long end = System.currentTimeMillis() + ms;
        while (System.currentTimeMillis() < end) {
            for (int i = 0; i < 1_000_000; i++) sink += i ^ (sink >>> 3);
        }
        int n = handled();
        System.out.println("handled " + (n > 0 ? "some" : "none"));
        System.out.println("done");
    }
}
