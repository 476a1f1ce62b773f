/* A program with one known hot method: hot() takes nearly all the CPU time. */
public class HotMethod {
    static volatile long sink;

    static long hot(long n) {
        long s = 0;
        for (long i = 0; i < n; i++) {
            s += (i * 31) ^ (s >>> 3);
        }
        return s;
    }

    static void cold() {
        sink += System.nanoTime() & 1;
    }

    public static void main(String[] args) throws Exception {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 1500;
        long end = System.currentTimeMillis() + ms;
        /* At least ms / 3 calls of hot() (about 2 ms each, compiled) as well, so that a
         * run starved of CPU by a busy machine still spends most of its time there. */
        for (long calls = 0; System.currentTimeMillis() < end || calls < ms / 3; calls++) {
            sink += hot(2_000_000);
            cold();
        }
        int code = args.length > 1 ? Integer.parseInt(args[1]) : 0;
        System.out.println("done");
        if (code != 0) System.exit(code);
    }
}
