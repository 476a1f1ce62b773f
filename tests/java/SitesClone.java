/*
 * exact heap=sites for copies made by clone(), in hot code the JIT compiles (HotSpot's
 * C2 copies inline there, without telling JVMTI): 300,000 of each of
 *   Bar: an override calling super.clone();
 *   int[]: an array's clone();
 *   Plain: Object.clone through invokevirtual, no override;
 *   Deep and its long[]: an override that copies a field's array after super.clone(),
 *     called through a subclass that inherits it.
 */
public class SitesClone {
    static class Bar implements Cloneable {
        long a;
        @Override public Bar clone() {
            try { return (Bar) super.clone(); } catch (CloneNotSupportedException e) { throw new Error(e); }
        }
    }
    static class Plain implements Cloneable {
        int p;
        Plain copy() throws CloneNotSupportedException { return (Plain) clone(); }
    }
    static class Deep implements Cloneable {
        long[] data = new long[2];
        @Override public Deep clone() {
            try {
                Deep d = (Deep) super.clone();
                d.data = data.clone();
                return d;
            } catch (CloneNotSupportedException e) { throw new Error(e); }
        }
    }
    static class DeepSub extends Deep {}

    static Object sink;
    static final int N = 300_000;

    static void bars(Bar b) { for (int i = 0; i < N; i++) sink = b.clone(); }
    static void ints(int[] a) { for (int i = 0; i < N; i++) sink = a.clone(); }
    static void plains(Plain p) throws Exception { for (int i = 0; i < N; i++) sink = p.copy(); }
    static void deeps(Deep d) { for (int i = 0; i < N; i++) sink = d.clone(); }

    public static void main(String[] args) throws Exception {
        bars(new Bar());
        ints(new int[3]);
        plains(new Plain());
        deeps(new DeepSub());
        System.out.println("done");
    }
}
