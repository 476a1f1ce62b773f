/**
 * Mounts and unmounts of virtual threads and nothing else: THREADS virtual threads each
 * yield ROUNDS times. Prints "switches N ms T" (T: the time the threads took).
 *   VirtualSwitch [THREADS (default 1000)] [ROUNDS (default 2000)]   (JDK 21+)
 */
public class VirtualSwitch {
    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        long t0 = System.nanoTime();
        Thread[] all = new Thread[threads];
        for (int i = 0; i < threads; i++)
            all[i] = Thread.ofVirtual().start(() -> {
                for (int k = 0; k < rounds; k++) Thread.yield();
            });
        for (Thread t : all) t.join();
        System.out.println("switches " + (long) threads * rounds + " ms " + (System.nanoTime() - t0) / 1_000_000);
    }
}
