/**
 * The rounds of a bench workload: runs the same work N times in one JVM and prints
 * "round N: MS ms" after each, the line bench/run.sh reads to tell the cost after warm-up
 * (the last rounds) from the start-up one.
 */
final class Rounds {
    interface Work {
        /** One round; returns a checksum of it. */
        long run() throws Exception;
    }

    private Rounds() {
    }

    /** Runs WORK ROUNDS times, printing each round's time; returns the last round's checksum. */
    static long repeat(int rounds, Work work) throws Exception {
        long checksum = 0;
        for (int r = 1; r <= rounds; r++) {
            long start = System.nanoTime();
            checksum = work.run();
            System.out.printf("round %d: %.1f ms%n", r, (System.nanoTime() - start) / 1e6);
        }
        return checksum;
    }
}
