/*
 * heap=sites at many traces in turn, from one thread: 12 x 12 x 12 = 1728 traces (three
 * levels of 12 call sites), each met once per round, 100 rounds, so every trace has
 * exactly 100 allocations. The agent's per-thread caches start with fewer slots than
 * that and must grow while counting.
 */
public class SitesWide {
    static final class Cell { int v; Cell(int v) { this.v = v; } }

    static Object sink;

    static Object l3(int k) {
        switch (k) {
            case 0: return new int[1];
            case 1: return new int[2];
            case 2: return new long[1];
            case 3: return new long[2];
            case 4: return new String[1];
            case 5: return new String[2];
            case 6: return new Cell(6);
            case 7: return new Cell(7);
            case 8: return new Cell(8);
            case 9: return new Cell(9);
            case 10: return new Cell(10);
            default: return new Cell(11);
        }
    }

    static Object l2(int j, int k) {
        switch (j) {
            case 0: return l3(k);
            case 1: return l3(k);
            case 2: return l3(k);
            case 3: return l3(k);
            case 4: return l3(k);
            case 5: return l3(k);
            case 6: return l3(k);
            case 7: return l3(k);
            case 8: return l3(k);
            case 9: return l3(k);
            case 10: return l3(k);
            default: return l3(k);
        }
    }

    static Object l1(int i, int j, int k) {
        switch (i) {
            case 0: return l2(j, k);
            case 1: return l2(j, k);
            case 2: return l2(j, k);
            case 3: return l2(j, k);
            case 4: return l2(j, k);
            case 5: return l2(j, k);
            case 6: return l2(j, k);
            case 7: return l2(j, k);
            case 8: return l2(j, k);
            case 9: return l2(j, k);
            case 10: return l2(j, k);
            default: return l2(j, k);
        }
    }

    public static void main(String[] args) {
        for (int round = 0; round < 100; round++)
            for (int t = 0; t < 1728; t++) sink = l1(t % 12, t / 12 % 12, t / 144);
        System.out.println("done");
    }
}
