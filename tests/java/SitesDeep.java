/*
 * exact heap=sites from hot, compiled code: objects made through constructor chains
 * that the JIT inlines into their callers, at four sites of 500,000 objects each
 * (Node and Leaf, each from a1 and from a2). The agent finds most of these traces by
 * the return address into the compiled code instead of walking the stack; the counts
 * and frames must be the same as a walk of every stack gives.
 */
public class SitesDeep {
    static class Base { final int v; Base(int v) { this.v = v; } }
    static final class Leaf extends Base { Leaf(int v) { super(v); } }
    static final class Node { final int v; Node(int v) { this.v = v; } }

    static Object sink;

    static Object make(int i) { return (i & 1) == 0 ? new Node(i) : new Leaf(i); }
    static Object a1(int i) { return make(i); }
    static Object a2(int i) { return make(i); }

    public static void main(String[] args) {
        for (int i = 0; i < 1_000_000; i++) {
            sink = a1(i);
            sink = a2(i);
        }
        System.out.println("done");
    }
}
