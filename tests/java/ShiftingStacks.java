/*
 * A program whose stacks change from phase to phase, so that a rolling profile sees new
 * ones all the time (tests/integration/rolling.sh F):
 *   ShiftingStacks MS D1 D2 ...
 * spins for MS milliseconds at each recursion depth Di in turn: in phase i every stack
 * holds exactly Di frames of level(). Prints "done" at the end.
 */
public class ShiftingStacks {
    static volatile long sink;

    static long spin(long n) {
        long s = 0;
        for (long i = 0; i < n; i++) s += (i * 31) ^ (s >>> 3);
        return s;
    }

    static long level(int depth, long until) {
        if (depth > 1) return level(depth - 1, until) + 1;
        long s = 0;
        while (System.nanoTime() < until) s += spin(2000);
        return s;
    }

    public static void main(String[] args) {
        long ms = Long.parseLong(args[0]);
        for (int i = 1; i < args.length; i++) sink += level(Integer.parseInt(args[i]), System.nanoTime() + ms * 1000000L);
        System.out.println("done");
    }
}
