/*
 * exact heap=sites where the compiled code that allocates was called by the interpreter:
 * loop runs long enough to be compiled on stack replacement, while its callers, which
 * run once, stay interpreted. With depth=3 the trace ends in an interpreted frame (first
 * or second, at one of two lines each), with depth=4 in two (main too). Four sites of
 * 400,000 Nodes each.
 */
public class SitesInterp {
    static final class Node { final int v; Node(int v) { this.v = v; } }

    static Object sink;

    static void loop(int n) {
        for (int i = 0; i < n; i++) sink = new Node(i);
    }

    static void first(int n) {
        loop(n);
        loop(n);
    }

    static void second(int n) {
        loop(n);
        loop(n);
    }

    public static void main(String[] args) {
        first(400_000);
        second(400_000);
        System.out.println("done");
    }
}
