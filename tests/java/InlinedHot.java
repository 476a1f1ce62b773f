/* A hot method that C2 inlines into a counted loop: the loop's safepoint poll is outside
 * hot(), so a sampler that waits for polls blames loop(); the CPU is in hot(). */
public class InlinedHot {
    static volatile long sink;

    static int hot(int x) {
        int y = x * 0x9E3779B9;
        y ^= y >>> 16;
        y *= 0x85EBCA6B;
        y ^= y >>> 13;
        y *= 0xC2B2AE35;
        y ^= y >>> 16;
        y = y * 31 + (y >>> 7);
        y ^= y << 11;
        return y;
    }

    static long loop(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) s += hot(i ^ (int) s);
        return s;
    }

    public static void main(String[] args) {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 2000;
        long end = System.currentTimeMillis() + ms;
        while (System.currentTimeMillis() < end) sink += loop(5_000_000);
        System.out.println("done");
    }
}
