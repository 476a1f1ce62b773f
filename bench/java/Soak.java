import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongUnaryOperator;

/**
 * The soak workload (bench/soak.sh): for the given number of seconds, rounds of
 *  - class-loader churn: a new loader defines SoakPayload from its bytes, runs it, and is
 *    dropped, so classes are loaded and unloaded all the time;
 *  - threads coming and going: each round starts short worker threads that contend for
 *    one lock, call small methods and allocate;
 *  - steady allocation into a fixed ring, so the live heap stays the same size.
 * Every tick it prints "tick <second> rounds=<n> loaders=<n>" (rounds done in that tick)
 * so the driver can see whether throughput decays; at the end "done rounds=<total>".
 *
 *   java Soak SECONDS [TICK_SECONDS]
 */
public class Soak {
    static final int RING = 2048;                 // live set: 2048 x 8 KiB = 16 MiB
    static final Object[] ring = new Object[RING];
    static final Object lock = new Object();
    static final AtomicLong sink = new AtomicLong();

    public static void main(String[] args) throws Exception {
        long seconds = Long.parseLong(args[0]);
        long tick = args.length > 1 ? Long.parseLong(args[1]) : 10;
        byte[] payload = OneClassLoader.bytesOf("SoakPayload");
        long start = System.nanoTime();
        long end = start + seconds * 1_000_000_000L;
        long nextTick = start + tick * 1_000_000_000L;
        long rounds = 0, inTick = 0, loaders = 0, total = 0;
        while (System.nanoTime() < end) {
            loaders += churnLoaders(payload, 4);
            runWorkers(4, rounds);
            allocate(rounds);
            rounds++;
            inTick++;
            long now = System.nanoTime();
            if (now >= nextTick) {
                System.out.println("tick " + (now - start) / 1_000_000_000L + " rounds=" + inTick + " loaders=" + loaders);
                System.out.flush();
                total += inTick;
                inTick = 0;
                nextTick += tick * 1_000_000_000L;
            }
        }
        System.out.println("done rounds=" + (total + inTick) + " sink=" + (sink.get() & 1));
    }

    /** Defines SoakPayload in `count` fresh loaders, runs each once, and drops them. */
    static int churnLoaders(byte[] payload, int count) throws Exception {
        for (int i = 0; i < count; i++) {
            ClassLoader loader = new OneClassLoader("SoakPayload", payload);
            Class<?> c = loader.loadClass("SoakPayload");
            LongUnaryOperator op = (LongUnaryOperator) c.getDeclaredConstructor().newInstance();
            sink.addAndGet(op.applyAsLong(i));
        }
        return count;
    }

    /** Starts `n` short threads that call small methods, allocate and contend for `lock`. */
    static void runWorkers(int n, long round) throws InterruptedException {
        Thread[] ts = new Thread[n];
        for (int i = 0; i < n; i++) {
            final int id = i;
            ts[i] = new Thread(() -> work(id, round), "soak-worker-" + (round % 64) + "-" + i);
            ts[i].start();
        }
        for (Thread t : ts) t.join();
    }

    static void work(int id, long round) {
        long acc = 0;
        for (int i = 0; i < 200; i++) {
            acc += mix(acc + i + id);
            if ((i & 31) == 0) {
                synchronized (lock) {
                    acc += new StringBuilder().append(round).append(i).length();
                }
            }
        }
        sink.addAndGet(acc);
    }

    static long mix(long x) {
        x ^= x >>> 33;
        x *= 0xff51afd7ed558ccdL;
        return x ^ (x >>> 29);
    }

    /** Replaces a slice of the ring, so allocation goes on while the live set stays flat. */
    static void allocate(long round) {
        for (int i = 0; i < 32; i++) {
            int slot = (int) ((round * 32 + i) % RING);
            ring[slot] = (i & 1) == 0 ? new byte[8192] : new long[1024];
        }
    }
}
