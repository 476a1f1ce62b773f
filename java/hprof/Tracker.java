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
 * and hands the buffer to the agent in bulk when it is full and one more pair comes.
 * Slot 0 of a buffer holds its fill index; the agent refills slots 0-2 at a hand-over.
 * The time is System.nanoTime() (the monotonic clock, a few tens of nanoseconds to read),
 * so that a call of a microsecond is timed as one. An entry reads the clock last and an exit first, so a method is not charged
 * for its own bookkeeping nor for a hand-over (its caller is).
 */
public final class Tracker {
    private Tracker() {}

    /* Set by the agent: 0 = inert, 1 = record method entries and exits. */
    private static volatile int engaged;

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
            drain(id, b, 1);                 // nothing to hand over: the agent marks the start
            all[(int) id] = b;
        }
        return b;
    }

    /* The thread's buffer with room for one more pair (handed over first if full: the agent
     * starts it again, with a mark of when the hand-over ended), or null for a thread id too
     * large for a buffer. */
    private static long[] roomFor(long id) {
        long[] b = bufferOf(id);
        if (b != null && b[0] >= b.length) drain(id, b, (int) b[0]);
        return b;
    }

    private static void put(long id, long[] b, long event, long time) {
        if (b == null) {                     // a thread id too large: hand over one by one
            long[] one = new long[] {3, event, time};
            drain(id, one, 3);
            return;
        }
        int n = (int) b[0];
        b[n] = event;
        b[n + 1] = time;
        b[0] = n + 2;
    }

    /* Method entry: (class number, method number). The clock is read last. */
    public static void CallSite(int cnum, int mnum) {
        if (engaged != 0) {
            long id = threadId(Thread.currentThread());
            long[] b = roomFor(id);
            put(id, b, ((long) cnum << 16) | mnum, System.nanoTime());
        }
    }

    /* Method exit, normal or by exception. The clock is read first. */
    public static void ReturnSite(int cnum, int mnum) {
        if (engaged != 0) {
            long time = System.nanoTime();
            long id = threadId(Thread.currentThread());
            put(id, roomFor(id), EXIT | ((long) cnum << 16) | mnum, time);
        }
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
