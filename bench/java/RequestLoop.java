import hprofbench.RequestWork;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The server benchmark without the network (bench/server.sh, workload "loop"): THREADS
 * threads serve RequestWork's requests back to back for WARMUP_S seconds, then for
 * MEASURE_S seconds, and the program prints the requests a second of each phase.
 *
 *   java RequestLoop THREADS WARMUP_S MEASURE_S
 *
 * Prints "warm-up: N requests/s", "requests/s: N" and "RequestLoop done: CHECK".
 */
public final class RequestLoop {
    private static final AtomicLong SEED = new AtomicLong();
    private static final LongAdder SERVED = new LongAdder();
    private static volatile boolean running = true;

    private RequestLoop() {
    }

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        long warmupMs = (long) (Double.parseDouble(args[1]) * 1000);
        long measureMs = (long) (Double.parseDouble(args[2]) * 1000);
        long[] check = new long[threads];
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int id = t;
            workers[t] = new Thread(() -> {
                long sum = 0;
                while (running) {
                    sum += RequestWork.page(SEED.incrementAndGet()).length();
                    SERVED.increment();
                }
                check[id] = sum;
            }, "request-" + t);
            workers[t].start();
        }
        System.out.printf("warm-up: %.0f requests/s%n", phase(warmupMs));
        System.out.printf("requests/s: %.0f%n", phase(measureMs));
        running = false;
        long sum = 0;
        for (int t = 0; t < threads; t++) {
            workers[t].join();
            sum += check[t];
        }
        System.out.println("RequestLoop done: " + sum);
    }

    /** Sleeps MS milliseconds and returns the requests a second served meanwhile. */
    private static double phase(long ms) throws InterruptedException {
        long start = System.nanoTime();
        long before = SERVED.sum();
        Thread.sleep(ms);
        long served = SERVED.sum() - before;
        return served / ((System.nanoTime() - start) / 1e9);
    }
}
