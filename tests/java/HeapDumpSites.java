/*
 * heap=all test program: objects made in one known method and kept, so that a heap dump
 * can name their allocation site.
 *   HeapDumpSites [wait] [many] makeThem() makes 3 Marked, the Marked[] holding them and
 *   a long[]; prints "ready", then returns (dump at exit) or, with "wait", sleeps until
 *   killed (dumps by SIGQUIT). With "many", makeMany() also keeps 100000 Many (enough
 *   for allocation sampling to pick some).
 */
public class HeapDumpSites {
    static class Marked {
        final int n;
        Marked(int n) { this.n = n; }
    }

    static class Many {
        long a, b;
    }

    static Marked[] marked;
    static Many[] many;
    static long[] longs;

    static void makeThem() {
        marked = new Marked[3];
        for (int i = 0; i < 3; i++) marked[i] = new Marked(i);
        longs = new long[] {1, 2, 3};
    }

    static void makeMany() {
        many = new Many[100000];
        for (int i = 0; i < many.length; i++) many[i] = new Many();
    }

    public static void main(String[] args) throws Exception {
        makeThem();
        java.util.List<String> opts = java.util.Arrays.asList(args);
        if (opts.contains("many")) makeMany();
        System.out.println("ready");
        if (opts.contains("wait")) Thread.sleep(600000);
    }
}
