import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/*
 * Known times for cpu=times and cpu=old. First tiny(), about 1 us, is called 54321 times,
 * from 32 call paths (five levels of p0/p1, chosen by the bits of the call's number: with
 * depth=6 each path is a trace of its own, of under 2 ms, as a short method called from
 * many places), after warmUp() has run it 50000 times (traces of their own). Then
 * outer() is called 500 times and spends nearly all its time in
 * inner(), about 400 us each. The program prints the CPU time of each as it measured it:
 * for tiny(), the time inside its calls, where a call that took over 10 us was
 * descheduled and counts as 1 us (what its loop ran at most), plus one read of the clock
 * per call (the parts of its two reads outside what it measures); then the same with
 * those stalled calls counted whole (a stall on the CPU, an interrupt or the hypervisor
 * taking the core, cannot be told from work by the thread's CPU time, so a profiler may
 * count it: the truth lies between the two); for inner(), the thread's CPU time over the
 * loop of outer() calls, which is nearly all inner().
 *
 *   tiny 54321 calls <ms>
 *   tiny stalls <n> <ms, the stalled calls whole>
 *   inner 500 calls <ms>
 */
public class CallTimes {
    static long tinyNs, wholeNs, stalls, clockNs, sink;

    static int tiny(int x) {
        long t0 = System.nanoTime();
        int s = x;
        while (System.nanoTime() - t0 < 1000) s = s * 31 + 1;
        long took = System.nanoTime() - t0;
        tinyNs += (took <= 10_000 ? took : 1000) + clockNs;
        wholeNs += took + clockNs;
        if (took > 10_000) stalls++;
        return s;
    }

    static int p0(int k, int level) {
        return level == 0 ? tiny(k) : (k & 1) == 0 ? p0(k >> 1, level - 1) : p1(k >> 1, level - 1);
    }

    static int p1(int k, int level) {
        return level == 0 ? tiny(k) : (k & 1) == 0 ? p0(k >> 1, level - 1) : p1(k >> 1, level - 1);
    }

    static long inner(int x) {
        long t0 = System.nanoTime();
        long s = x;
        while (System.nanoTime() - t0 < 400_000L) s = s * 31 + 7;
        return s;
    }

    static long outer(int x) {
        return inner(x) + 1;
    }

    /* What a read of the clock takes: the least over a few rounds. */
    static long clockCost() {
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 20; round++) {
            long t0 = System.nanoTime(), t = t0;
            for (int i = 0; i < 10_000; i++) t = System.nanoTime();
            best = Math.min(best, (t - t0) / 10_000);
        }
        return best;
    }

    /* Runs tiny() until the JIT is done with it, from a caller of its own (other traces). */
    static void warmUp() {
        for (int i = 0; i < 50_000; i++) sink += tiny(i);
        tinyNs = wholeNs = stalls = 0;
    }

    public static void main(String[] args) {
        clockNs = clockCost();
        warmUp();
        for (int i = 0; i < 54321; i++) sink += (i & 1) == 0 ? p0(i >> 1, 4) : p1(i >> 1, 4);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long cpu0 = mx.getCurrentThreadCpuTime();
        for (int i = 0; i < 500; i++) sink += outer(i);
        long innerNs = mx.getCurrentThreadCpuTime() - cpu0;
        System.out.printf("tiny 54321 calls %.3f%n", tinyNs / 1e6);
        System.out.printf("tiny stalls %d %.3f%n", stalls, wholeNs / 1e6);
        System.out.printf("inner 500 calls %.3f%n", innerNs / 1e6);
        System.out.println("sink " + (sink & 1));
    }
}
