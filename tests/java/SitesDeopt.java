/*
 * exact heap=sites while the JIT throws compiled code away: run() is compiled for one
 * Maker, then meets a second (the compiled code is deoptimized and compiled again),
 * then both in turn. Node is made at M1.make 750,000 times and at M2.make 750,000 times;
 * a trace found through stale compiled code would move counts between the two.
 */
public class SitesDeopt {
    interface Maker { Object make(int i); }
    static final class Node { final int v; Node(int v) { this.v = v; } }
    static final class M1 implements Maker { public Object make(int i) { return new Node(i); } }
    static final class M2 implements Maker { public Object make(int i) { return new Node(-i); } }

    static Object sink;

    static Object run(Maker m, int i) { return m.make(i); }

    public static void main(String[] args) {
        Maker m1 = new M1(), m2 = new M2();
        for (int i = 0; i < 500_000; i++) sink = run(m1, i);
        for (int i = 0; i < 500_000; i++) sink = run(m2, i);
        for (int i = 0; i < 500_000; i++) sink = run((i & 1) == 0 ? m1 : m2, i);
        System.out.println("done");
    }
}
