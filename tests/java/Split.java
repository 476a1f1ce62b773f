/*
 * Three quarters of the CPU in partA, one quarter in partB: the same loop in two methods,
 * run three times as long in A. The length of a round is drawn at random: CPU timers
 * fire on the kernel's tick (4 ms at HZ=250), and a round of fixed length can take as
 * long as a tick (this loop ran at 1 ns an iteration here: 4 ms for 4,000,000), so that
 * every sample met the same point of it and the split came out 62/36 or 86/13. Prints
 * the process's CPU time (all its threads, from /proc/self/stat) at the end, for the
 * sample-count check, and the share of the main thread's CPU partA really took (its own
 * clock around each call), which the samples' split is checked against.
 */
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

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
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long inA = 0, inB = 0;
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(42);
        long end = System.currentTimeMillis() + ms;
        while (System.currentTimeMillis() < end) {
            int n = 500_000 + rnd.nextInt(1_000_000);
            long t0 = mx.getCurrentThreadCpuTime();
            sink += partA(3 * n);
            long t1 = mx.getCurrentThreadCpuTime();
            sink += partB(n);
            long t2 = mx.getCurrentThreadCpuTime();
            inA += t1 - t0;
            inB += t2 - t1;
        }
        System.out.println("cpu_ms=" + ProcessCpu.ms());
        System.out.println("share_a=" + (inA + inB > 0 ? 100 * inA / (inA + inB) : 0));
        System.out.println("done");
    }
}
