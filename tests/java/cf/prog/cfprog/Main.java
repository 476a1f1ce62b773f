package cfprog;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.function.IntBinaryOperator;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** Exercises every bytecode family the instrumenter rewrites; prints deterministic output. */
public class Main {
    static int counter;

    enum Color { RED, GREEN, BLUE }

    interface Shape { double area(); }

    record Circle(double r) implements Shape {
        public double area() { return 3.0 * r * r; }
    }

    static int table(int x) {
        switch (x) {
            case 0: return 10;
            case 1: return 11;
            case 2: return 12;
            case 3: return 13;
            case 4: return 14;
            default: return -1;
        }
    }

    static int lookup(int x) {
        switch (x) {
            case -1000: return 1;
            case 7: return 2;
            case 99999: return 3;
            case 12345678: return 4;
            default: return 0;
        }
    }

    /* The same switches behind 0..3 bytes of extra code, so their padding differs. */
    static int pad1(int x) { int a = x; switch (a) { case 1: return 5; case 2: return 6; case 3: return 7; default: return 8; } }
    static int pad2(int x) { long a = x; switch ((int) a) { case 1: return 5; case 2: return 6; case 3: return 7; default: return 8; } }
    static int pad3(int x) { int a = x + 1 - 1; switch (a) { case 10: return 5; case 2000: return 6; default: return 8; } }

    static String strSwitch(String s) {
        switch (s) {
            case "alpha": return "A";
            case "beta": return "B";
            case "gamma": return "G";
            default: return "?";
        }
    }

    static int colorSwitch(Color c) {
        switch (c) {
            case RED: return 1;
            case GREEN: return 2;
            default: return 3;
        }
    }

    static long longs(long a, double b, float c) { return a * 3 + (long) b + (long) c; }
    static double dbl(double d) { return d / 2; }
    static float flt(float f) { return f * 2; }
    static char chr(int i) { return (char) ('a' + i); }

    static Object arrays(int n) {
        int[] a = new int[n];
        String[] s = new String[n];
        long[][] m = new long[n][n + 1];
        Object[][][] o = new Object[2][3][];
        for (int i = 0; i < n; i++) { a[i] = i * i; s[i] = "s" + i; m[i][i] = a[i]; }
        return Arrays.toString(a) + Arrays.toString(s) + m[n - 1][n - 1] + o.length + o[1].length;
    }

    static int nestedFinally(int x) {
        try {
            try {
                if (x > 2) throw new IllegalStateException("x" + x);
                return x;
            } finally {
                counter++;
            }
        } catch (IllegalStateException e) {
            return -x;
        } finally {
            counter += 10;
        }
    }

    static void thrower(int depth) {
        if (depth == 0) throw new RuntimeException("deep");
        thrower(depth - 1);
    }

    static int deepCatch() {
        try {
            thrower(5);
            return 0;
        } catch (RuntimeException e) {
            return 1;
        }
    }

    static class Base {
        final int v;
        Base(int v) { this.v = v; }
    }

    static class Derived extends Base {
        final String tag;
        Derived(int x) {
            super(x > 0 ? compute(x) : -x);   // a branch (and frames) before super()
            tag = "d" + v;
        }
        Derived(String s) { this(s == null ? 0 : s.length()); }
        static int compute(int x) { return x * 2; }
    }

    static class Failing extends Base {
        Failing(int x) {
            super(x);
            if (x < 0) throw new IllegalArgumentException("neg");
        }
    }

    static class WithNew extends Base {
        WithNew(int x) { super(new Base(x).v + new int[x].length); }
    }

    synchronized int syncMethod(int x) {
        synchronized (this) {
            return x + 1;
        }
    }

    static int loops(int n) {
        int s = 0;
        outer:
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if (j > i) continue outer;
                if (i * j > 50) break outer;
                s += i ^ j;
            }
        }
        do { s--; } while (s > 1000);
        return s;
    }

    public static void main(String[] args) throws Exception {
        StringBuilder out = new StringBuilder();
        for (int i = -1; i < 6; i++) out.append(table(i)).append(' ');
        for (int v : new int[] {-1000, 7, 99999, 12345678, 3}) out.append(lookup(v)).append(' ');
        for (int i = 0; i < 4; i++) out.append(pad1(i)).append(pad2(i)).append(pad3(i * 1000)).append(' ');
        for (String s : new String[] {"alpha", "beta", "gamma", "delta"}) out.append(strSwitch(s));
        for (Color c : Color.values()) out.append(colorSwitch(c));
        System.out.println(out);
        System.out.println(longs(5, 2.5, 1.5f) + " " + dbl(3) + " " + flt(1.25f) + " " + chr(2));
        System.out.println(arrays(4));
        for (int i = 0; i < 5; i++) System.out.print(nestedFinally(i) + " ");
        System.out.println("counter=" + counter + " deep=" + deepCatch());
        System.out.println(new Derived(5).tag + " " + new Derived(-3).tag + " " + new Derived("abcd").tag
            + " " + new Derived((String) null).tag + " " + new WithNew(3).v);
        try {
            new Failing(-1);
        } catch (IllegalArgumentException e) {
            System.out.println("caught " + e.getMessage());
        }
        System.out.println(new Main().syncMethod(41) + " " + loops(12));
        Function<Integer, Integer> triple = x -> x * 3;
        Supplier<String> sup = () -> "sup";
        IntBinaryOperator op = Math::max;
        List<String> names = new ArrayList<>(List.of("b", "a", "c"));
        names.sort(String::compareTo);
        System.out.println(triple.apply(7) + sup.get() + op.applyAsInt(3, 9) + names
            + IntStream.range(0, 10).map(i -> i * i).filter(i -> i % 2 == 0).sum()
            + names.stream().map(String::toUpperCase).collect(Collectors.joining(",")));
        Shape sh = new Circle(2);
        System.out.println("area=" + sh.area() + " " + sh);
        int[] box = new int[1];
        Thread t = new Thread(() -> { for (int i = 0; i < 100; i++) box[0] += i; });
        t.start();
        t.join();
        System.out.println("thread=" + box[0]);
        Generated.run();
        report();
    }

    /* Prints the tracker's counts (when the tracker is there) to stderr. */
    static void report() {
        try {
            Class<?> tr = Class.forName("cftest.Tracker");
            long entries = ((java.util.concurrent.atomic.AtomicLong) tr.getField("entries").get(null)).get();
            long returns = ((java.util.concurrent.atomic.AtomicLong) tr.getField("returns").get(null)).get();
            long arrays = ((java.util.concurrent.atomic.AtomicLong) tr.getField("arrays").get(null)).get();
            boolean unbalanced = tr.getField("unbalanced").getBoolean(null);
            System.err.println("tracker: entries=" + entries + " open=" + (entries - returns)
                + " arrays=" + arrays + " unbalanced=" + unbalanced);
        } catch (ReflectiveOperationException e) {
            System.err.println("tracker: absent");
        }
    }
}
