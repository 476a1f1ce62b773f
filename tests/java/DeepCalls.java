/*
 * Known call counts on deep stacks and many traces (cpu=times, timing=gprof): down(n)
 * recurses 5,000 levels (far deeper than a thread's first stack of open calls) and calls
 * the trivial leaf() 3 times at the bottom, 7 times over; then pick() walks 5,120 paths of
 * 11 levels through p0() and p1(), as the bits of the call's number choose, each ending
 * in leaf(): with depth=12 some 250 traces, more than a thread's first table holds
 * (64). Prints a result that does not depend on timing.
 *
 *   down: 7 calls from main, 35,000 from down; leaf: 21 from down, 5,120 from p0 or p1;
 *   pick: 5,120 from main, 51,200 from p0 or p1; p0 and p1: 56,320 together.
 */
public class DeepCalls {
    static long sink;

    static int leaf(int x) {
        return x + 1;
    }

    static int down(int n) {
        if (n == 0) {
            int s = 0;
            for (int i = 0; i < 3; i++) s += leaf(i);
            return s;
        }
        return down(n - 1) + 1;
    }

    static int p0(int bits, int level) {
        return level == 0 ? leaf(bits) : pick(bits >> 1, level - 1);
    }

    static int p1(int bits, int level) {
        return level == 0 ? leaf(bits) : pick(bits >> 1, level - 1) + 1;
    }

    static int pick(int bits, int level) {
        return (bits & 1) == 0 ? p0(bits, level) : p1(bits, level);
    }

    public static void main(String[] args) {
        for (int r = 0; r < 7; r++) sink += down(5000);
        for (int i = 0; i < 5120; i++) sink += pick(i * 0x9E3779B1 >>> 21, 10);
        System.out.println("deep " + sink);
    }
}
