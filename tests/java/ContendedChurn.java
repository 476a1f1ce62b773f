import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayDeque;

/**
 * Short platform threads started one after another, a few alive at once, that contend for
 * one monitor, sometimes wait on it (and are notified by the next ones), call a small
 * method and allocate. Prints the process's resident memory (VmRSS, KiB) each time a tenth
 * of them have run, so that a test sees whether what an agent keeps per thread follows
 * the live threads or piles up (a leak grows in every tenth, a cache filled once in one):
 *   rss KIB1 KIB2 ... KIB10 threads COUNT
 *   java ContendedChurn COUNT
 */
public final class ContendedChurn {
    private static final int ALIVE = 4;          // threads running at once, at most
    private static final Object lock = new Object();
    private static volatile long sink;
    private static long counter;                 // under lock

    private ContendedChurn() {
    }

    static long body(int i) {
        return i * 31L + (i >>> 3);
    }

    static void work(int i) {
        byte[] a = new byte[64 + (i & 63)];
        long acc = body(i) + a.length;
        synchronized (lock) {
            counter += acc;
            lock.notifyAll();                    // wakes whoever waits (the waits are timed anyway)
            if ((i & 7) == 0) {
                try {
                    lock.wait(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            sink += new StringBuilder().append(counter).length();
        }
    }

    private static void run(ArrayDeque<Thread> alive, int from, int to) throws InterruptedException {
        for (int i = from; i < to; i++) {
            if (alive.size() >= ALIVE) alive.removeFirst().join();
            final int k = i;
            Thread t = new Thread(() -> work(k), "churn-" + (k & 1023));
            t.start();
            alive.addLast(t);
        }
        while (!alive.isEmpty()) alive.removeFirst().join();
    }

    /** VmRSS in KiB, after a GC (the heap is sized and touched at start: -Xms = -Xmx, AlwaysPreTouch). */
    private static long rssKiB() throws Exception {
        System.gc();
        for (String line : Files.readAllLines(Paths.get("/proc/self/status")))
            if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
        return -1;
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        ArrayDeque<Thread> alive = new ArrayDeque<>();
        StringBuilder out = new StringBuilder("rss");
        for (int i = 0; i < 10; i++) {
            run(alive, (int) ((long) n * i / 10), (int) ((long) n * (i + 1) / 10));
            out.append(' ').append(rssKiB());
        }
        System.out.println(out.append(" threads ").append(n));
    }
}
