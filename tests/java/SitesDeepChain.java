import java.lang.reflect.Method;

/*
 * exact heap=sites deeper than one code site names (depth=16 and 32): allocations at the
 * bottom of a recursion 20 calls deep through a() and b(), which take turns as the bits
 * of a path say (32 paths), called straight from main, from a second thread, and by
 * reflection (on JDK 17 first through a native method, which calls back into Java, then
 * through generated code; on JDK 25 through method handles). Callers that run once stay
 * interpreted, the recursion gets compiled. Each call of work(N) makes N Nodes and N
 * int[], N / 32 at each path. Before them, a static initializer the VM calls when main's
 * callee 11 calls deep first needs its class makes INIT Nodes.
 */
public class SitesDeepChain {
    static final class Node {
        final int v;
        Node(int v) { this.v = v; }
    }

    static final int N = 19_200, CALLS = 40, INIT = 500_000;
    static volatile Object sink;

    static final class Init {
        static final Object last;

        static {
            Object o = null;
            for (int i = 0; i < INIT; i++) o = new Node(i);
            last = o;
        }
    }

    static void init(int d) {
        if (d == 0) sink = Init.last;
        else init(d - 1);
    }

    static void a(int d, int path) {
        if (d == 0) leaf(path);
        else if ((path >> d & 1) == 0) a(d - 1, path);
        else b(d - 1, path);
    }

    static void b(int d, int path) {
        if (d == 0) leaf(path);
        else if ((path >> d & 1) == 0) a(d - 1, path);
        else b(d - 1, path);
    }

    static void leaf(int path) {
        sink = new Node(path);
        sink = new int[path & 7];
    }

    public static void work(int n) {
        for (int i = 0; i < n; i++) a(20, i & 63);
    }

    public static void main(String[] args) throws Exception {
        init(10);
        Thread other = new Thread(() -> {
            for (int r = 0; r < CALLS; r++) work(N);
        }, "deep-other");
        other.start();
        Method m = SitesDeepChain.class.getMethod("work", int.class);
        for (int r = 0; r < CALLS; r++) m.invoke(null, N);
        for (int r = 0; r < CALLS; r++) work(N);
        other.join();
        System.out.println("done");
    }
}
