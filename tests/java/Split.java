/*
 * Three quarters of the CPU in partA, one quarter in partB: the same loop in two methods,
 * run three times as long in A. Prints the process's CPU time (all its threads, from
 * /proc/self/stat) at the end, for the sample-count check.
 */
public class Split {
    static volatile long sink;

    static long partA(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) s += (i * 0x9E3779B9L) ^ (s >>> 11);
        return s;
    }

    static long partB(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) s += (i * 0x9E3779B9L) ^ (s >>> 11);
        return s;
    }

    public static void main(String[] args) throws Exception {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 2000;
        long end = System.currentTimeMillis() + ms;
        while (System.currentTimeMillis() < end) {
            sink += partA(3_000_000);
            sink += partB(1_000_000);
        }
        System.out.println("cpu_ms=" + ProcessCpu.ms());
        System.out.println("done");
    }
}
