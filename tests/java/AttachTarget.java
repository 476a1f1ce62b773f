import java.io.File;

/*
 * A long-running program for the attach tests (tests/integration/attach.sh): hot() takes
 * nearly all its CPU time, and it allocates steadily, so its heap counters move. It runs
 * while the file args[0] exists (at most args[1] seconds), prints "done" and exits with
 * the code args[2]: what it prints and its exit code must not change when attached to.
 */
public class AttachTarget {
    static volatile long sink;
    static final Object[] keep = new Object[64];

    static long hot(long n) {
        long s = 0;
        for (long i = 0; i < n; i++) {
            s += (i * 31) ^ (s >>> 3);
        }
        return s;
    }

    public static void main(String[] args) throws Exception {
        File flag = new File(args[0]);
        long end = System.currentTimeMillis() + 1000L * Long.parseLong(args[1]);
        int code = Integer.parseInt(args[2]);
        System.out.println("ready");
        System.out.flush();
        int i = 0;
        while (flag.exists() && System.currentTimeMillis() < end) {
            sink += hot(1_000_000);
            keep[i++ & 63] = new byte[32 * 1024];
        }
        System.out.println("done");
        System.exit(code);
    }
}
