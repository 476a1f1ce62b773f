/* Spends about three quarters of its CPU time in hotA and one quarter in hotB. */
public class Mixed {
    static volatile long sink;

    static long hotA(long n) {
        long s = 0;
        for (long i = 0; i < n; i++) s += (i * 17) ^ (s >>> 5);
        return s;
    }

    static long hotB(long n) {
        long s = 1;
        for (long i = 0; i < n; i++) s += (i * 13) ^ (s >>> 7);
        return s;
    }

    public static void main(String[] args) {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 2000;
        long end = System.currentTimeMillis() + ms;
        while (System.currentTimeMillis() < end) {
            sink += hotA(3_000_000);
            sink += hotB(1_000_000);
        }
        System.out.println("done");
    }
}
