/*
 * cpu=times with timing=sampled (tests/integration/cpu_times_sampled.sh): cheap(), a few
 * nanoseconds of work with a loop (so not a trivial method), is called 3,000,000 times
 * from spin(); slow(), 2 ms by the clock, 20 times. The program prints the CPU time it
 * measured around slow()'s calls:
 *
 *   slow 20 calls <ms>
 */
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

public class SampledTimes {
    static long sink;

    static int cheap(int x) {
        int s = x;
        for (int i = 0; i < 3; i++) s = s * 31 + i;
        return s;
    }

    static long spin(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) s += cheap(i);
        return s;
    }

    /* 2 ms by the clock, whatever the JIT made of it. */
    static long slow(long x) {
        long t0 = System.nanoTime(), s = x;
        while (System.nanoTime() - t0 < 2_000_000L) s = s * 31 + 7;
        return s;
    }

    public static void main(String[] args) {
        for (int round = 0; round < 30; round++) sink += spin(100_000);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long cpu = 0;
        for (int i = 0; i < 20; i++) {
            long t0 = mx.getCurrentThreadCpuTime();
            sink += slow(i);
            cpu += mx.getCurrentThreadCpuTime() - t0;
        }
        System.out.printf("slow 20 calls %.3f%n", cpu / 1e6);
        System.out.println(sink == 42 ? "" : "done");
    }
}
