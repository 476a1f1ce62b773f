import java.lang.management.ManagementFactory;

/**
 * Starts short threads one after another, each calling body() once: platform threads, or
 * virtual threads (JDK 21+) with "virtual". Prints the heap in use (after a GC) once a
 * tenth of them have run and again at the end, so that a test sees whether what an agent
 * keeps per thread follows the live threads or piles up.
 *   java ThreadChurn platform|virtual COUNT
 */
public final class ThreadChurn {
    private static volatile long sink;

    private ThreadChurn() {
    }

    static void body(int i) {
        sink += i;
    }

    private static long heapUsed() {
        for (int i = 0; i < 3; i++) System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static void run(boolean virtual, int from, int to) throws Exception {
        for (int i = from; i < to; i++) {
            final int k = i;
            Runnable r = () -> body(k);
            Thread t = virtual ? VirtualThreads.start(r) : new Thread(r);
            if (!virtual) t.start();
            t.join();
        }
    }

    public static void main(String[] args) throws Exception {
        boolean virtual = args[0].equals("virtual");
        if (virtual && !VirtualThreads.available()) {
            System.out.println("no virtual threads on this JDK");
            return;
        }
        int n = Integer.parseInt(args[1]);
        int tenth = n / 10;
        run(virtual, 0, tenth);
        long before = heapUsed();
        run(virtual, tenth, n);
        long after = heapUsed();
        System.out.println("threads " + n + " heap after a tenth " + before + " at the end " + after);
    }
}
