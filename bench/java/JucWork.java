import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/*
 * bench/juc.sh's workloads, each printing its own time ("ms N") and a checksum.
 *   JucWork lock THREADS OPS       THREADS threads take one ReentrantLock OPS times in all,
 *                                  a little work under it: a contended hand-over workload
 *   JucWork uncontended OPS        one thread takes a ReentrantLock OPS times: the fast path
 *   JucWork pool THREADS TASKS     a pool of THREADS fed TASKS small tasks through a
 *                                  LinkedBlockingQueue (workers park on take when idle)
 *   JucWork park OPS               one thread parks OPS times on an object, its permit
 *                                  given first (no sleep): what a park costs, the hooks'
 *                                  share alone; "ms" is that thread's CPU time, which
 *                                  other programs on the machine change far less
 */
public class JucWork {
    static long counter;

    static void work(int n) {
        long x = counter;
        for (int i = 0; i < n; i++) x = x * 6364136223846793005L + 1442695040888963407L;
        counter = x;
    }

    public static void main(String[] a) throws Exception {
        long t0 = System.nanoTime();
        long sum = 0;
        switch (a[0]) {
        case "lock": {
            int threads = Integer.parseInt(a[1]);
            long ops = Long.parseLong(a[2]);
            ReentrantLock l = new ReentrantLock();
            AtomicLong left = new AtomicLong(ops);
            Thread[] ts = new Thread[threads];
            for (int i = 0; i < threads; i++) {
                ts[i] = new Thread(() -> {
                    while (left.getAndDecrement() > 0) {
                        l.lock();
                        try {
                            work(50);
                        } finally {
                            l.unlock();
                        }
                        work(50);
                    }
                });
                ts[i].start();
            }
            for (Thread t : ts) t.join();
            sum = counter;
            break;
        }
        case "park": {
            long ops = Long.parseLong(a[1]);
            Object blocker = new Object();
            Thread me = Thread.currentThread();
            java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
            for (long i = 0; i < ops / 4; i++) { // compiled before it counts
                LockSupport.unpark(me);
                LockSupport.park(blocker);
            }
            long c0 = mx.getCurrentThreadCpuTime();
            for (long i = 0; i < ops; i++) {
                LockSupport.unpark(me);
                LockSupport.park(blocker);
            }
            System.out.println("ms " + (mx.getCurrentThreadCpuTime() - c0) / 1_000_000);
            System.out.println("sum " + ops);
            return;
        }
        case "uncontended": {
            long ops = Long.parseLong(a[1]);
            ReentrantLock l = new ReentrantLock();
            for (long i = 0; i < ops; i++) {
                l.lock();
                counter++;
                l.unlock();
            }
            sum = counter;
            break;
        }
        default: {
            int threads = Integer.parseInt(a[1]);
            int tasks = Integer.parseInt(a[2]);
            ThreadPoolExecutor pool =
                new ThreadPoolExecutor(threads, threads, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>());
            CountDownLatch done = new CountDownLatch(tasks);
            AtomicLong acc = new AtomicLong();
            for (int i = 0; i < tasks; i++) {
                final int k = i;
                pool.execute(() -> {
                    long x = k;
                    for (int j = 0; j < 200; j++) x = x * 31 + j;
                    acc.addAndGet(x);
                    done.countDown();
                });
                if (i % 64 == 0) Thread.yield(); // the workers drain the queue and wait on it often
            }
            done.await();
            pool.shutdown();
            sum = acc.get();
        }
        }
        System.out.println("ms " + (System.nanoTime() - t0) / 1_000_000);
        System.out.println("sum " + sum);
    }
}
