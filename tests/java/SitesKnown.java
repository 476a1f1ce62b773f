import java.util.ArrayList;
import java.util.List;

/*
 * Allocations with known counts, for heap=sites: 12345 Foo at one site (every other one
 * kept), 777 int[3][4] (each makes 1 int[][] and 3 int[]; 100 kept), 500 clones, 300
 * reflective constructions, 200 Array.newInstance, 10 reflective constructions of a Heavy
 * whose constructor makes 1000 Part and then clones an array, and (with a native library)
 * 400 JNI AllocObject + 250 JNI NewObject. Also 16 threads allocating 1000 Baz each at once.
 */
public class SitesKnown {
    static class Foo { int x; Foo(int x) { this.x = x; } }
    static class Bar implements Cloneable {
        long a, b;
        public Bar clone() {
            try { return (Bar) super.clone(); } catch (CloneNotSupportedException e) { throw new Error(e); }
        }
    }
    static class Baz { int v; }
    static class Qux { int q; Qux() { q = 7; } }
    static class Part { int p; }
    static class Heavy {
        final Part[] parts = new Part[1000];
        final long[] copy;
        public Heavy() {
            for (int i = 0; i < parts.length; i++) parts[i] = new Part();
            copy = new long[] {1, 2, 3}.clone();
        }
    }

    static final List<Object> keep = new ArrayList<>();

    static void makeFoos() {
        for (int i = 0; i < 12345; i++) {
            Foo f = new Foo(i);
            if (i % 2 == 0) keep.add(f);
        }
    }

    static void makeArrays() {
        for (int i = 0; i < 777; i++) {
            int[][] a = new int[3][4];
            if (i < 100) keep.add(a);
        }
    }

    static void makeClones() {
        Bar b = new Bar();
        for (int i = 0; i < 500; i++) keep.add(b.clone());
    }

    static void makeReflective() throws Exception {
        for (int i = 0; i < 300; i++) keep.add(Foo.class.getDeclaredConstructor(int.class).newInstance(i));
        for (int i = 0; i < 200; i++) keep.add(java.lang.reflect.Array.newInstance(long.class, 5));
        for (int i = 0; i < 10; i++) keep.add(Heavy.class.getDeclaredConstructor().newInstance());
    }

    static native Object allocObject(Class<?> c);
    static native Object newObject(Class<?> c);

    static void makeJni() {
        for (int i = 0; i < 400; i++) keep.add(allocObject(Qux.class));
        for (int i = 0; i < 250; i++) keep.add(newObject(Qux.class));
    }

    static void makeBazes() {
        for (int i = 0; i < 1000; i++) keep.add(new Baz());
    }

    public static void main(String[] args) throws Exception {
        makeFoos();
        makeArrays();
        makeClones();
        makeReflective();
        if (args.length > 0) {
            System.load(args[0]);
            makeJni();
        }
        Thread[] ts = new Thread[16];
        List<Object>[] perThread = new List[16];
        for (int t = 0; t < ts.length; t++) {
            final int k = t;
            perThread[k] = new ArrayList<>();
            ts[t] = new Thread(() -> { for (int i = 0; i < 1000; i++) perThread[k].add(new Baz()); }, "alloc-" + t);
        }
        for (Thread t : ts) t.start();
        for (Thread t : ts) t.join();
        for (List<Object> l : perThread) keep.addAll(l);
        System.out.println("kept " + keep.size());
    }
}
