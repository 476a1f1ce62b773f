package cftest;

import java.util.concurrent.atomic.AtomicLong;

/** Test tracker for the class-file instrumenter: counts the injected calls. Put on
 *  -Xbootclasspath/a: so that classes of every loader and module can reach it. */
public final class Tracker {
    private Tracker() {}

    public static final AtomicLong entries = new AtomicLong();
    public static final AtomicLong returns = new AtomicLong();
    public static final AtomicLong arrays = new AtomicLong();
    public static final AtomicLong objects = new AtomicLong();
    /** Per-thread call depth: must never go negative when returns and exception exits balance. */
    private static final ThreadLocal<int[]> depth = ThreadLocal.withInitial(() -> new int[1]);
    public static volatile boolean unbalanced;

    public static void CallSite(int cnum, int mnum) {
        entries.incrementAndGet();
        depth.get()[0]++;
    }

    public static void ReturnSite(int cnum, int mnum) {
        returns.incrementAndGet();
        if (--depth.get()[0] < 0) unbalanced = true;
    }

    public static void NewArray(Object array) {
        if (array == null || !array.getClass().isArray()) throw new AssertionError("not an array");
        arrays.incrementAndGet();
    }

    public static void ObjectInit(Object obj) {
        objects.incrementAndGet();
    }

    public static String summary() {
        return "entries=" + entries.get() + " returns=" + returns.get() + " arrays=" + arrays.get()
            + " unbalanced=" + unbalanced;
    }
}
