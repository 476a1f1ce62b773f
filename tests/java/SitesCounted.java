import java.util.ArrayList;
import java.util.List;

/*
 * heap=sites,callers=sampled (tests/integration/heap_sites_counted.sh).
 * "ratio": one site (make) called from two callers, 750,000 times from a() and 250,000
 * from b(), interleaved 3:1; a site with one caller (single: 1,000,000 long[i & 7]); and
 * 200,000 new int[2][3] (200,000 int[][] and 400,000 int[]): long enough loops for C2.
 * "live": 1,600,000 byte[256], every 4th kept to the end (400,000 live).
 * "lambdas": 300,000 capturing lambdas (method handles make each with
 * Unsafe.allocateInstance), 100,000 from each of three callers; "lambda-threads": the
 * same on 8 threads at once (2,400,000), which meet each lambda class first together.
 * "made": what the VM makes, no `new` in sight: 300,000 copies of a Copyable by
 * super.clone() and 200,000 of a long[5] by clone(), each in its own method; 400,000
 * long[3] by Array.newInstance, 300,000 from newA() and 100,000 from newB() interleaved
 * (one call inside Array.newInstance makes them all); 10,000 new int[2][3] by
 * Array.newInstance(int.class, 2, 3) (10,000 int[][], 20,000 int[]).
 * "made-live": 800,000 long[64] by Array.newInstance, every 4th kept (200,000 live).
 * "late": one site (make) called 2,000,000 times from lateA() alone, then 400,000 times
 * from lateA() and lateB() in turn: a second caller found late (200,000 of 2,400,000).
 * "hidden": `new` in hidden classes: 100,000 Item by a constructor reference (the lambda
 * proxy makes them) and 100,000 strings by `+` (JDK 24+ makes them in a hidden class).
 */
public class SitesCounted {
    static final class Item { final int v; Item(int v) { this.v = v; } }
    static Object sink;
    static long sum;

    static Object make(int i) { return new Item(i); }
    static java.util.function.IntSupplier capture(int i) { return () -> i + 1; }
    static void lambdaA(int i) { sum += capture(i).getAsInt(); }
    static void lambdaB(int i) { sum += capture(i).getAsInt(); }
    static void lambdaC(int i) { sum += capture(i).getAsInt(); }
    static void a(int i) { sink = make(i); }
    static void b(int i) { sink = make(i); }
    static void lateA(int i) { sink = make(i); }
    static void lateB(int i) { sink = make(i); }
    static void single(int i) { long[] l = new long[i & 7]; sum += l.length; }
    static void multi(int i) { int[][] m = new int[2][3]; sum += m[i & 1].length; }

    static final class Copyable implements Cloneable {
        final int v;
        Copyable(int v) { this.v = v; }
        Copyable copy() {
            try { return (Copyable) super.clone(); } catch (CloneNotSupportedException e) { throw new Error(e); }
        }
    }
    static final long[] FIVE = new long[5];
    static void copies(Copyable c) { sink = c.copy(); }
    static void arrayCopy() { sink = FIVE.clone(); }
    static void newA() { sink = java.lang.reflect.Array.newInstance(long.class, 3); }
    static void newB() { sink = java.lang.reflect.Array.newInstance(long.class, 3); }
    static void newMulti() { sink = java.lang.reflect.Array.newInstance(int.class, 2, 3); }

    static int big(int i) { return 100_000 + i; }

    /* 10 ints returned through reflection: boxed by the VM (JDK 17's native accessor, for a
     * method's first calls) or by Integer.valueOf in Java (JDK 18+'s method handles). */
    static void boxes() throws Exception {
        java.lang.reflect.Method m = SitesCounted.class.getDeclaredMethod("big", int.class);
        for (int i = 0; i < 10; i++) sink = m.invoke(null, i);
    }

    static void made() throws Exception {
        Copyable c = new Copyable(7);
        for (int i = 0; i < 400_000; i++) {
            if (i < 300_000) copies(c);
            if (i < 200_000) arrayCopy();
            if (i % 4 != 3) newA(); else newB();
            if (i < 10_000) newMulti();
        }
        boxes();
    }

    static void concat(int i) { sink = "s" + i + "/" + (i * 3); }

    static void hidden() {
        java.util.function.IntFunction<Item> make = Item::new;
        for (int i = 0; i < 100_000; i++) {
            sink = make.apply(i);
            concat(i);
        }
    }

    static void lambdas() {
        for (int i = 0; i < 100_000; i++) {
            lambdaA(i);
            lambdaB(i);
            lambdaC(i);
        }
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("ratio")) {
            for (int i = 0; i < 1_000_000; i++) {
                if (i % 4 != 3) a(i); else b(i);
                single(i);
                if (i < 200_000) multi(i);
            }
            System.out.println("done " + sum);
        } else if (args[0].equals("late")) {
            for (int i = 0; i < 2_000_000; i++) lateA(i);
            for (int i = 0; i < 400_000; i++) {
                if ((i & 1) == 0) lateA(i); else lateB(i);
            }
            System.out.println("done");
        } else if (args[0].equals("made-live")) {
            List<Object> keep = new ArrayList<>();
            for (int i = 0; i < 800_000; i++) {
                Object x = java.lang.reflect.Array.newInstance(long.class, 64);
                if (i % 4 == 0) keep.add(x);
            }
            System.out.println("kept " + keep.size());
            sink = keep;
        } else if (args[0].equals("hidden")) {
            hidden();
            System.out.println("done");
        } else if (args[0].equals("made")) {
            made();
            System.out.println("done");
        } else if (args[0].equals("lambdas")) {
            lambdas();
            System.out.println("done " + sum);
        } else if (args[0].equals("lambda-threads")) {
            Thread[] t = new Thread[8];
            java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
            for (int k = 0; k < t.length; k++) {
                t[k] = new Thread(() -> {
                    try { go.await(); } catch (InterruptedException e) { throw new Error(e); }
                    lambdas();
                });
                t[k].start();
            }
            go.countDown();
            for (Thread x : t) x.join();
            System.out.println("done");
        } else {
            List<byte[]> keep = new ArrayList<>();
            for (int i = 0; i < 1_600_000; i++) {
                byte[] x = new byte[256];
                if (i % 4 == 0) keep.add(x);
            }
            System.out.println("kept " + keep.size());
            sink = keep;
        }
    }
}
