/*
 * exact heap=sites where the JIT did not inline enough frames at the allocation for the
 * depth (run with depth=3 and make, pair, a1 and a2 kept from being inlined): the trace
 * then takes the return address into the compiled caller as well. Three sites of
 * 500,000 objects each: Node from make called by a1, Node from make called by pair, and
 * Pair from pair called by a2.
 */
public class SitesCaller {
    static final class Node { final int v; Node(int v) { this.v = v; } }
    static final class Pair { final Object a, b; Pair(Object a, Object b) { this.a = a; this.b = b; } }

    static Object sink;

    static Object make(int i) { return new Node(i); }
    static Object pair(int i) { return new Pair(make(i), null); }
    static Object a1(int i) { return make(i); }
    static Object a2(int i) { return pair(i); }

    public static void main(String[] args) {
        for (int i = 0; i < 500_000; i++) {
            sink = a1(i);
            sink = a2(i);
        }
        System.out.println("done");
    }
}
