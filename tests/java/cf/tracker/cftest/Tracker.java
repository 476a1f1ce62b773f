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

    /* The allocation-site hooks (cf-rewrite --hooks sites): each checks its arguments. */
    public static final AtomicLong newSites = new AtomicLong();
    public static final AtomicLong arraySites = new AtomicLong();
    public static final AtomicLong arrayLengths = new AtomicLong();
    public static final AtomicLong multiSites = new AtomicLong();
    public static final AtomicLong allocInsts = new AtomicLong();

    static {
        // printed only when site hooks ran, so runs without them keep their output
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (newSites.get() + arraySites.get() + multiSites.get() + allocInsts.get() > 0)
                System.err.println("sites: new=" + newSites.get() + " arrays=" + arraySites.get() + " length="
                    + arrayLengths.get() + " multi=" + multiSites.get() + " allocinst=" + allocInsts.get());
        }));
    }

    public static void NewSite(int site) {
        if (site < 0) throw new AssertionError("site " + site);
        newSites.incrementAndGet();
    }

    public static void ArraySite(int length, int site, int code) {
        if (length < 0 || site < 0 || code < 4 || code > 12) throw new AssertionError("array site " + site);
        arraySites.incrementAndGet();
        arrayLengths.addAndGet(length);
    }

    public static void MultiSite(Object array, int site) {
        if (array == null || !array.getClass().isArray() || site < 0) throw new AssertionError("multi site " + site);
        multiSites.incrementAndGet();
    }

    public static void AllocInst(Object obj, int site) {
        if (obj == null || site < 0) throw new AssertionError("allocateInstance gave null, or site " + site);
        allocInsts.incrementAndGet();
    }

    public static String summary() {
        return "entries=" + entries.get() + " returns=" + returns.get() + " arrays=" + arrays.get()
            + " unbalanced=" + unbalanced;
    }
}
