import java.io.File;

/*
 * exact heap=sites deep (depth=32): the same traces met with a frame interpreted, then
 * compiled. fan() calls inner() from 64 call sites, one for each p: 64 traces. First fan
 * runs interpreted (called 64 times, too few for the JIT) under an inner() compiled
 * already; then it is compiled (called 20,000 times more; with -Xbatch the JIT is done
 * before the calls go on). The program then says "ready" and waits, allocating nothing,
 * until the profile (args[0]) grows: the test's SIGQUIT asks the agent for a dump, and
 * HPROF_STACK_STATS prints how many stacks were walked so far. Then the 64 traces are
 * made again, with fan's frames compiled. Each allocation makes a Node.
 */
public class SitesDeepNamed {
    static final class Node {
        final int v;
        Node(int v) { this.v = v; }
    }

    static volatile Object sink;

    static void make(int i) { sink = new Node(i); }

    static void inner(int n) {
        for (int i = 0; i < n; i++) make(i);
    }

    static void fan(int p, int n) {
        switch (p & 63) {
            case 0: inner(n); break;
            case 1: inner(n); break;
            case 2: inner(n); break;
            case 3: inner(n); break;
            case 4: inner(n); break;
            case 5: inner(n); break;
            case 6: inner(n); break;
            case 7: inner(n); break;
            case 8: inner(n); break;
            case 9: inner(n); break;
            case 10: inner(n); break;
            case 11: inner(n); break;
            case 12: inner(n); break;
            case 13: inner(n); break;
            case 14: inner(n); break;
            case 15: inner(n); break;
            case 16: inner(n); break;
            case 17: inner(n); break;
            case 18: inner(n); break;
            case 19: inner(n); break;
            case 20: inner(n); break;
            case 21: inner(n); break;
            case 22: inner(n); break;
            case 23: inner(n); break;
            case 24: inner(n); break;
            case 25: inner(n); break;
            case 26: inner(n); break;
            case 27: inner(n); break;
            case 28: inner(n); break;
            case 29: inner(n); break;
            case 30: inner(n); break;
            case 31: inner(n); break;
            case 32: inner(n); break;
            case 33: inner(n); break;
            case 34: inner(n); break;
            case 35: inner(n); break;
            case 36: inner(n); break;
            case 37: inner(n); break;
            case 38: inner(n); break;
            case 39: inner(n); break;
            case 40: inner(n); break;
            case 41: inner(n); break;
            case 42: inner(n); break;
            case 43: inner(n); break;
            case 44: inner(n); break;
            case 45: inner(n); break;
            case 46: inner(n); break;
            case 47: inner(n); break;
            case 48: inner(n); break;
            case 49: inner(n); break;
            case 50: inner(n); break;
            case 51: inner(n); break;
            case 52: inner(n); break;
            case 53: inner(n); break;
            case 54: inner(n); break;
            case 55: inner(n); break;
            case 56: inner(n); break;
            case 57: inner(n); break;
            case 58: inner(n); break;
            case 59: inner(n); break;
            case 60: inner(n); break;
            case 61: inner(n); break;
            case 62: inner(n); break;
            default: inner(n); break;
        }
    }

    static void each(int n) {
        for (int p = 0; p < 64; p++) fan(p, n);
    }

    public static void main(String[] args) throws Exception {
        File profile = new File(args[0]);
        for (int i = 0; i < 20_000; i++) inner(1); /* compiled before fan calls it */
        for (int round = 0; round < 2; round++) {
            each(8); /* 512 Nodes: fan interpreted in round 0, compiled in round 1 */
            if (round == 1) break;
            for (int i = 0; i < 20_000; i++) fan(i, 0);
            long before = profile.length();
            System.out.println("ready");
            for (int i = 0; i < 6000 && profile.length() == before; i++) Thread.sleep(50);
            for (long was = -1; was != profile.length(); was = profile.length()) Thread.sleep(200);
        }
        System.out.println("done");
    }
}
