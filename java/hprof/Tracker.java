package hprof;

/*
 * The Tracker: static methods that instrumented bytecode calls (see src/classfile).
 *
 * Calls are inert until the agent engages the tracker at VM start, and the tracker
 * never calls anything that is itself instrumented (the agent leaves out
 * Thread.currentThread, Thread.getId and Thread.threadId), so it cannot recurse.
 *
 * cpu=times: method entries and exits are not sent to native code one by one. Each
 * thread appends (event, time) pairs to its own long[] buffer, found by its thread id,
 * and hands the buffer to the agent in bulk when it fills. Slot 0 of a buffer holds its
 * fill index. The time is read from `now`, a nanosecond clock the agent advances every
 * 100 microseconds: far cheaper than System.nanoTime() on every call, and still an
 * unbiased measure of a method's time (a call is charged one tick for each tick that
 * falls inside it, so on average exactly its duration).
 */
public final class Tracker {
    private Tracker() {}

    /* Set by the agent: 0 = inert, 1 = record method entries and exits. */
    private static volatile int engaged;

    /* Set by the agent's clock thread: monotonic nanoseconds, advanced in ticks. */
    private static volatile long now;

    private static final int PAIRS = 8192;
    private static final int MAX_DIRECT = 1 << 16;
    private static final long EXIT = Long.MIN_VALUE;

    /* One buffer per thread id below MAX_DIRECT; threads above use the shared path. */
    private static volatile long[][] buffers = new long[256][];

    private static native void drain(long threadId, long[] buffer, int length);

    private static long threadId(Thread t) {
        return t.getId();
    }

    private static long[] bufferOf(long id) {
        long[][] all = buffers;
        if (id < all.length) {
            long[] b = all[(int) id];
            if (b != null) return b;
        }
        return newBuffer(id);
    }

    private static synchronized long[] newBuffer(long id) {
        if (id >= MAX_DIRECT) return null;
        long[][] all = buffers;
        if (id >= all.length) {
            int n = all.length;
            while (n <= id) n *= 2;
            long[][] bigger = new long[n][];
            System.arraycopy(all, 0, bigger, 0, all.length);
            buffers = all = bigger;
        }
        long[] b = all[(int) id];
        if (b == null) {
            b = new long[1 + 2 * PAIRS];
            b[0] = 1;
            all[(int) id] = b;
        }
        return b;
    }

    private static void record(long event) {
        Thread t = Thread.currentThread();
        long id = threadId(t);
        long[] b = bufferOf(id);
        if (b == null) {                     // a thread id too large: hand over one by one
            long[] one = new long[] {3, event, now};
            drain(id, one, 3);
            return;
        }
        int n = (int) b[0];
        b[n] = event;
        b[n + 1] = now;
        n += 2;
        if (n >= b.length) {
            drain(id, b, n);
            n = 1;
        }
        b[0] = n;
    }

    /* Method entry: (class number, method number). */
    public static void CallSite(int cnum, int mnum) {
        if (engaged != 0) record(((long) cnum << 16) | mnum);
    }

    /* Method exit, normal or by exception. */
    public static void ReturnSite(int cnum, int mnum) {
        if (engaged != 0) record(EXIT | ((long) cnum << 16) | mnum);
    }

    /* heap=sites: 1 while allocations are counted. */
    private static volatile int allocs;

    private static native void allocated(Object obj, boolean array);

    /*
     * heap=sites, called straight from instrumented code: the same as ObjectInit and
     * NewArray without their Java frame, which the agent's stack walk would otherwise
     * have to step over on every allocation. Only classes instrumented once the agent
     * has bound these (at VM init) call them; the agent checks whether it is counting.
     */
    public static native void newObject(Object obj);
    public static native void newArray(Object obj);

    /* heap=sites: after a call of clone() that ran Object.clone (newClone) or may have run
     * an override of it (newVirtualClone), with what it returned. */
    public static native void newClone(Object obj);
    public static native void newVirtualClone(Object obj);

    /* At the entry of java.lang.Object.<init>: a new object. */
    public static void ObjectInit(Object obj) {
        if (allocs != 0) allocated(obj, false);
    }

    /* Right after newarray, anewarray or multianewarray: a new array. */
    public static void NewArray(Object obj) {
        if (allocs != 0) allocated(obj, true);
    }
}
