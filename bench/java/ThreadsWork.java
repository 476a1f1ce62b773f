import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Many-threads benchmark workload: 200 threads, of which 4 are busy with a fixed amount of
 * computation and the rest are mostly blocked, in four ways: Object.wait on a shared monitor,
 * a CountDownLatch (park), short sleeps in a loop, and BlockingQueue.take on a queue the busy
 * threads feed now and then (so those wake up, take a contended lock, and block again).
 * A profiler that samples or walks every thread pays for the 196 idle ones here.
 *
 *   java ThreadsWork [THREADS (default 200)] [BUSY (default 4)] [UNITS (default 2400)]
 */
public final class ThreadsWork {
    private static final Object MONITOR = new Object();
    private static final Object COUNTER_LOCK = new Object();
    private static final CountDownLatch FINISHED = new CountDownLatch(1);
    private static final BlockingQueue<Integer> QUEUE = new ArrayBlockingQueue<>(1024);
    private static final Integer POISON = -1;
    private static volatile boolean done;
    private static long consumed;

    private ThreadsWork() {
    }

    static long compute(int unit) {
        long h = unit;
        for (int i = 0; i < 1_000_000; i++) {
            h = h * 31 + (i ^ (h >>> 7));
            if ((h & 1023) == 7) {
                h += step(i);
            }
        }
        return h;
    }

    static long step(int i) {
        return Long.rotateLeft(i * 0x9E3779B97F4A7C15L, i & 63);
    }

    static void idle(int kind) throws InterruptedException {
        switch (kind) {
            case 0:
                synchronized (MONITOR) {
                    while (!done) {
                        MONITOR.wait();
                    }
                }
                break;
            case 1:
                FINISHED.await();
                break;
            case 2:
                while (!done) {
                    Thread.sleep(20);
                }
                break;
            default:
                for (Integer item; (item = QUEUE.take()) != POISON; ) {
                    synchronized (COUNTER_LOCK) {
                        consumed += item;
                    }
                }
                break;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        int busy = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        int units = args.length > 2 ? Integer.parseInt(args[2]) : 2400;
        int idleCount = threads - busy;
        int takers = 0;
        Thread[] idle = new Thread[idleCount];
        for (int t = 0; t < idleCount; t++) {
            final int kind = t % 4;
            if (kind == 3) {
                takers++;
            }
            idle[t] = new Thread(() -> {
                try {
                    idle(kind);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "idle-" + kind + "-" + t);
            idle[t].start();
        }
        AtomicLong checksum = new AtomicLong();
        AtomicLong produced = new AtomicLong();
        Thread[] workers = new Thread[busy];
        for (int b = 0; b < busy; b++) {
            final int id = b;
            workers[b] = new Thread(() -> {
                long local = 0;
                try {
                    for (int u = id; u < units; u += busy) {
                        local += compute(u);
                        if (u % 3 == 0) {
                            QUEUE.put(u);
                            produced.addAndGet(u);
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                checksum.addAndGet(local);
            }, "busy-" + b);
            workers[b].start();
        }
        for (Thread w : workers) {
            w.join();
        }
        done = true;
        synchronized (MONITOR) {
            MONITOR.notifyAll();
        }
        FINISHED.countDown();
        for (int i = 0; i < takers; i++) {
            QUEUE.put(POISON);
        }
        for (Thread t : idle) {
            t.join();
        }
        long got;
        synchronized (COUNTER_LOCK) {
            got = consumed;
        }
        if (got != produced.get()) {
            throw new IllegalStateException("queue lost items: " + got + " != " + produced.get());
        }
        System.out.println("ThreadsWork done: threads=" + threads + " busy=" + busy + " units=" + units
                + " consumed=" + got + " checksum=" + checksum.get());
    }
}
