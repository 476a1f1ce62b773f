package hprof;

/*
 * The Tracker: static methods that instrumented bytecode calls (see src/classfile).
 *
 * Calls are inert until the agent engages the tracker at VM start, and the tracker
 * never calls anything that is itself instrumented (the agent leaves out
 * Thread.currentThread, Thread.getId, Thread.threadId and Thread.isAlive with the alive()
 * it calls), so it cannot recurse.
 *
 * cpu=times: method entries and exits are not sent to native code one by one. Each
 * thread appends events to its own long[] buffer, an event that read the clock with its
 * time (two slots), one that read none alone (one slot: most calls of a cheap method, and
 * every call of a trivial one), and hands the buffer to the agent in bulk when one more
 * event may not fit. Slot 0 of a buffer holds its fill
 * index, slot 1 the thread id of its owner and slot 2 its count of cheap events (below);
 * the agent refills slots 0-1 and the first pair at a hand-over.
 * The time is System.nanoTime() (the monotonic clock, a few tens of nanoseconds to read),
 * so that a call of a microsecond is timed as one. An entry reads the clock last and an exit first, so a method is not charged
 * for its own bookkeeping nor for a hand-over (its caller is).
 *
 * Buffers follow the live threads: a thread's buffer is handed over for the last time and
 * made free when the thread ends (the agent calls ended() at its ThreadEnd), or, for a
 * thread that ends without that event (a virtual thread), when the table is rebuilt and
 * finds it no longer alive. A buffer starts small and grows while its thread keeps
 * filling it; free buffers are kept for the next threads, a few of them.
 *
 * timing=gprof: no events and no clock. Each thread counts its calls itself, on the
 * traces of up to `depth` frames it has seen (see counted below); the agent reads the counts
 * at a dump and when the thread ends, and takes the times from CPU samples.
 *
 * timing=sampled: a method whose timed calls the agent found cheap (a few clock reads of
 * their own) is timed by sample. Its entries and exits are still all recorded, most of
 * them with the UNTIMED bit and no clock read; the agent charges those calls the mean it
 * learned. Each thread counts its cheap events and times the first TIMED of every BURST,
 * so that a cheap call's entry and exit are most often both timed or both not.
 */
public final class Tracker {
    private Tracker() {}

    /*
     * Keeps the JIT from inlining a method. The build renames it to HotSpot's own
     * jdk.internal.vm.annotation.DontInline, which the VM honours in classes of the boot
     * class path, where the Tracker is loaded (javac would not let --release code name
     * that package). See roomFor.
     */
    @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
    private @interface DontInline {}

    /* Set by the agent: 0 = inert, 1 = record method entries and exits, 2 = count calls
     * (timing=gprof). */
    private static volatile int engaged;
    private static final int RECORD = 1, COUNT = 2;
    /* Set by the agent before it engages: timing=gprof, and the frames of a trace. Each
     * thread's array is a buffer of events, or counts (below), for good. */
    private static boolean counting;
    private static int depth = 4;

    private static final int HEAD = 3;                   /* [0] fill index, [1] owner's thread id, [2] cheap events */
    private static final int FIRST_PAIRS = 256;
    private static final int MAX_PAIRS = 8192;
    private static final int SPARES = 16;
    private static final int MIN_SLOTS = 64;
    private static final long EXIT = Long.MIN_VALUE;
    private static final long LEAF = 1L << 61;
    private static final long UNTIMED = 1L << 60;
    private static final int BURST = 64, TIMED = 8;
    /* By class number, then method number: non-zero for a method timed by sample. Set by
     * the agent (timeBySample), read with plain loads: a stale view only times a call. */
    private static byte[][] cheap = new byte[0][];
    /* The slot of a thread that ended: probes go past it (no thread has id -1). */
    private static final long[] GONE = {0, -1};

    /*
     * The buffers of live threads, open addressing by thread id: ids count up, so the
     * low bits spread them. The owning thread finds its own without a lock (a stale view
     * only sends it to claim(), which looks again under the lock); every change is made
     * under the Tracker's lock, and at most half the slots are used, GONE ones included.
     */
    private static volatile long[][] table = new long[MIN_SLOTS][];
    private static Thread[] owners = new Thread[MIN_SLOTS];   /* under the lock, as the rest */
    private static int used;
    private static final long[][] spare = new long[SPARES][];
    private static int spares;

    /* On the thread itself: counts the buffer's pairs up to length (none when the Tracker
     * has just made it) and starts it again with a mark. */
    private static native void drain(long threadId, long[] buffer, int length);
    /* From any thread: counts the pairs up to length of the buffer of thread t (null: the
     * current thread); last: t records nothing more, its call stack can go. */
    private static native void handOver(long threadId, long[] buffer, int length, Thread t, boolean last);

    /* timing=gprof, from any thread, under the Tracker's lock: the agent adds what thread t
     * (null: the current thread) counted since it last looked; last: t counts no more. */
    private static native void counted(long threadId, long[] counts, Thread t, boolean last);

    /* What a thread's array holds, to the agent. */
    private static void giveUp(long[] b, Thread t, boolean last) {
        if (counting)
            counted(b[1], b, t, last);
        else
            handOver(b[1], b, (int) b[0], t, last);
    }

    private static long threadId(Thread t) {
        return t.getId();
    }

    /* The array in the thread's first slot of the table: most often its own. */
    private static long[] firstSlot(long id) {
        long[][] t = table;
        return t[(int) id & (t.length - 1)];
    }

    private static long[] bufferOf(long id) {
        long[] b = firstSlot(id);
        return b != null && b[1] == id ? b : find(id);
    }

    /* Not in its first slot: further on, or not there yet. */
    private static long[] find(long id) {
        long[][] t = table;
        int mask = t.length - 1;
        for (int i = (int) id & mask; ; i = (i + 1) & mask) {
            long[] b = t[i];
            if (b == null) return claim(id);
            if (b[1] == id) return b;
        }
    }

    /*
     * The Tracker's lock, the agent's (a native one: see struct tracker in
     * src/sources/bci/tracker.c), recursive. Not `synchronized`: a virtual thread that
     * finds a monitor held unmounts, and its carrier runs hooks as that thread before the
     * unmount ends; one of them waiting for the same monitor would wait for good.
     */
    private static native void lock();
    private static native void unlock();

    /* The current thread's buffer, made (or taken from the spares) if it has none. */
    private static long[] claim(long id) {
        lock();
        try {
            return claimHeld(id);
        } finally {
            unlock();
        }
    }

    private static long[] claimHeld(long id) {
        long[][] t = table;
        int mask = t.length - 1, free = -1, i = (int) id & mask;
        for (long[] b; (b = t[i]) != null; i = (i + 1) & mask) {
            if (b[1] == id) return b;
            if (b == GONE && free < 0) free = i;
        }
        if (free < 0) {
            if (2 * (used + 1) > t.length) {
                rebuild();
                return claimHeld(id);
            }
            free = i;
            used++;
        }
        long[] b;
        if (counting) {
            b = firstCounts(id);
        } else {
            b = spares > 0 ? spare[--spares] : new long[HEAD + 2 * FIRST_PAIRS];
            spare[spares] = null;
            b[1] = id;
            drain(id, b, HEAD);              // nothing to hand over: the agent marks the start
        }
        owners[free] = Thread.currentThread();
        t[free] = b;
        return b;
    }

    /* A buffer its thread gave up, free for the next one. */
    private static void recycle(long[] b) {
        if (counting) return;
        b[0] = HEAD;
        b[1] = -1;
        if (spares < SPARES) spare[spares++] = b;
    }

    /*
     * A table for the live threads, at most a quarter full: the buffers of threads no
     * longer alive are handed over for the last time and made free, GONE slots dropped.
     */
    private static void rebuild() {
        long[][] t = table;
        Thread[] o = owners;
        int live = 0;
        for (int i = 0; i < t.length; i++) {
            long[] b = t[i];
            if (b == null || b == GONE) continue;
            if (o[i].isAlive()) {
                live++;
            } else {
                giveUp(b, o[i], true);
                recycle(b);
                o[i] = null;
            }
        }
        int n = MIN_SLOTS;
        while (n < 4 * (live + 1)) n *= 2;
        long[][] nt = new long[n][];
        Thread[] no = new Thread[n];
        for (int i = 0; i < t.length; i++) {
            if (o[i] == null || t[i] == null || t[i] == GONE) continue;
            int j = (int) t[i][1] & (n - 1);
            while (nt[j] != null) j = (j + 1) & (n - 1);
            nt[j] = t[i];
            no[j] = o[i];
        }
        owners = no;
        used = live;
        table = nt;
    }

    /* The slot of the thread with this id in the table, or -1. */
    private static int slotOf(long[][] t, long id) {
        int mask = t.length - 1;
        for (int i = (int) id & mask; t[i] != null; i = (i + 1) & mask)
            if (t[i][1] == id) return i;
        return -1;
    }

    /* A full buffer of a thread that keeps filling it gives way to a larger one. */
    private static long[] larger(long id, long[] b) {
        lock();
        try {
            return largerHeld(id, b);
        } finally {
            unlock();
        }
    }

    private static long[] largerHeld(long id, long[] b) {
        long[][] t = table;
        int i = slotOf(t, id);
        if (i < 0 || t[i] != b) return b;
        int pairs = 4 * ((b.length - HEAD) / 2);    // no Math.min: the Tracker calls nothing instrumented
        long[] big = new long[HEAD + 2 * (pairs < MAX_PAIRS ? pairs : MAX_PAIRS)];
        System.arraycopy(b, 0, big, 0, (int) b[0]);
        t[i] = big;
        return big;
    }

    /*
     * The thread's buffer with room for one more event of two slots (handed over first if
     * not: the agent starts it again, with a mark of when the hand-over ended). The JIT
     * copies this into every method it compiles, at each entry and exit of each method
     * it inlines: one call out (noRoom) on the rare path, not one for each thing that
     * can be missing (finding the buffer, the hand-over, a larger buffer), each of which
     * costs the JIT's register allocator at every hook.
     */
    private static long[] roomFor(long id) {
        long[] b = firstSlot(id);
        return b != null && b[1] == id && b[0] <= b.length - 2 ? b : noRoom(id);
    }

    @DontInline
    private static long[] noRoom(long id) {
        return room(id, bufferOf(id));
    }

    private static long[] room(long id, long[] b) {
        if (b[0] > b.length - 2) {
            drain(id, b, (int) b[0]);
            if (b.length < HEAD + 2 * MAX_PAIRS) b = larger(id, b);
        }
        return b;
    }

    private static void put(long[] b, long event, long time) {
        int n = (int) b[0];
        b[n] = event;
        b[n + 1] = time;
        b[0] = n + 2;
    }

    /* An event that read no clock: no time slot. */
    private static void put(long[] b, long event) {
        int n = (int) b[0];
        b[n] = event;
        b[0] = n + 1;
    }

    private static boolean isCheap(int cnum, int mnum) {
        byte[][] c = cheap;
        if (cnum >= c.length) return false;
        byte[] m = c[cnum];
        return m != null && mnum < m.length && m[mnum] != 0;
    }

    /* Whether this event of a cheap method goes untimed: all but the first TIMED of
     * every BURST of the thread's cheap events. */
    private static boolean sampledOut(long[] b) {
        return (b[2]++ & (BURST - 1)) >= TIMED;
    }

    /* Method entry: (class number, method number). The clock is read last. */
    public static void CallSite(int cnum, int mnum) {
        int e = engaged;
        if (e == COUNT) {
            count(((long) cnum << 16) | mnum, true);
        } else if (e == RECORD) {
            long[] b = roomFor(threadId(Thread.currentThread()));
            long event = ((long) cnum << 16) | mnum;
            if (isCheap(cnum, mnum) && sampledOut(b))
                put(b, event | UNTIMED);
            else
                put(b, event, System.nanoTime());
        }
    }

    /* Method exit, normal or by exception. The clock is read first. */
    public static void ReturnSite(int cnum, int mnum) {
        int e = engaged;
        if (e == COUNT) {
            exit(((long) cnum << 16) | mnum);
        } else if (e == RECORD) {
            long event = EXIT | ((long) cnum << 16) | mnum;
            if (isCheap(cnum, mnum)) {
                cheapExit(event);
                return;
            }
            long time = System.nanoTime();
            put(roomFor(threadId(Thread.currentThread())), event, time);
        }
    }

    private static void cheapExit(long event) {
        long[] b = roomFor(threadId(Thread.currentThread()));
        if (sampledOut(b)) {
            put(b, event | UNTIMED);
        } else {
            long time = System.nanoTime();
            put(b, event, time);
        }
    }

    /* Called by the agent, one call at a time: method (cnum, mnum) of a class with
     * nmethods methods is timed by sample (on) or at every call. The arrays are made
     * here, where no allocation is counted, and replaced whole when they must grow. */
    private static void timeBySample(int cnum, int mnum, int nmethods, boolean on) {
        byte[][] c = cheap;
        if (cnum >= c.length) {
            int n = c.length > 0 ? c.length : 256;
            while (n <= cnum) n *= 2;
            byte[][] bigger = new byte[n][];
            System.arraycopy(c, 0, bigger, 0, c.length);
            c = bigger;
        }
        byte[] m = c[cnum];
        if (m == null || mnum >= m.length) {
            byte[] wider = new byte[nmethods > mnum ? nmethods : mnum + 1];
            if (m != null) System.arraycopy(m, 0, wider, 0, m.length);
            m = wider;
        }
        m[mnum] = on ? (byte) 1 : 0;
        c[cnum] = m;
        cheap = c;
    }

    /* Entry of a trivial method (no calls, no loops: see cf_method_trivial), which has no
     * exit hook: one event, counted as a call, and no clock read; its time goes to its
     * caller. */
    public static void LeafSite(int cnum, int mnum) {
        int e = engaged;
        if (e == COUNT)
            count(((long) cnum << 16) | mnum, false);
        else if (e == RECORD)
            put(roomFor(threadId(Thread.currentThread())), LEAF | ((long) cnum << 16) | mnum);
    }

    /*
     * timing=gprof: a thread's counts, in one long[] in the table in place of a buffer:
     *   [0] open calls on its stack, [1] its thread id, [2] nodes made, [3] node slots (a
     *   power of two), [4] stack slots, [5] generation (one more at each rebuild: the
     *   agent's copy of the counts follows it), then the stack (code << 24 | node, one
     *   per open call), then the node slots, three longs each: key, calls, shape (an
     *   entry reads the key and adds to the calls beside it, in one cache line for 7 of 8
     *   nodes: the table of a busy thread outgrows the caches, so its misses count).
     * A node is a trace of up to `depth` frames, top first: the method called (code, class
     * number << 16 | method number) on top of the node `under` (the frames beneath). Its
     * key is ((under + 1) << 40 | code) + 1 (0: a free slot, under + 1 = 0: nothing
     * beneath); its shape is its length | (the node of its top length - 1 frames, + 1) << 8.
     * A call from a node of full length is made on that shorter node: so the nodes are
     * the traces, each once, and an entry costs one probe of one table.
     */
    private static final int C_HEAD = 6, FIRST_NODES = 128, FIRST_STACK = 64;
    private static final int MAX_NODES = 1 << 20, MAX_STACK = 1 << 20, NO_NODE = (1 << 24) - 1;

    private static long[] newCounts(long id, int nodes, int stack, long generation) {
        long[] b = new long[C_HEAD + stack + 3 * nodes];
        b[1] = id;
        b[3] = nodes;
        b[4] = stack;
        b[5] = generation;
        return b;
    }

    /* Where the node slots start. */
    private static int nodes(long[] b) {
        return C_HEAD + (int) b[4];
    }

    /* The node of `code` called on top of node under1 - 1 (0: none), made if new; -1 when
     * the table has no room (made: whether it may make one). */
    private static int node(long[] b, long under1, long code, boolean made) {
        long key = ((under1 << 40) | code) + 1;
        int mask = (int) b[3] - 1, nodes = nodes(b);
        // the fold lets every bit of the key reach the bits of the product kept: without it
        // nodes whose callers differ only in high bits start at one slot (javac: 25% slower)
        int i = (int) (((key ^ (key >>> 32)) * 0x9E3779B97F4A7C15L) >>> 32) & mask;
        for (long k; (k = b[nodes + 3 * i]) != key; i = (i + 1) & mask)
            if (k == 0) return made || 2 * (b[2] + depth) < b[3] ? make(b, i, under1, code, key) : -1;
        return i;
    }

    /* A new node in free slot i; the node of its shorter trace is made first if need be
     * (at most depth - 1 more, which node() left room for). */
    private static int make(long[] b, int i, long under1, long code, long key) {
        int mask = (int) b[3] - 1, nodes = nodes(b);
        long shape = 1;
        if (under1 != 0) {
            long below = b[nodes + 3 * ((int) under1 - 1) + 2];
            shape = ((below & 0xff) + 1) | ((node(b, below >>> 8, code, true) + 1L) << 8);
            while (b[nodes + 3 * i] != 0) i = (i + 1) & mask;  // that one may have taken slot i
        }
        b[nodes + 3 * i] = key;
        b[nodes + 3 * i + 2] = shape;
        b[2]++;
        return i;
    }

    /* A node table of at least `nodes` slots in which node() may make a trace of `depth`
     * frames once the open calls' nodes are made: without it a deep `depth` (view= takes
     * 64) found no room in a new table, which then never grew, and counted nothing. */
    private static int roomy(int nodes, int open) {
        while (nodes < MAX_NODES && 2L * ((long) open + 2 * depth) >= nodes) nodes *= 2;
        return nodes;
    }

    /* The node a call made now is made on, + 1 (0: the stack is empty). */
    private static long from(long[] b) {
        int sp = (int) b[0];
        if (sp == 0) return 0;
        int n = (int) b[C_HEAD + sp - 1] & NO_NODE;
        if (n == NO_NODE) return 0;
        long shape = b[nodes(b) + 3 * n + 2];
        return (shape & 0xff) < depth ? n + 1 : shape >>> 8;
    }

    /* The calls the current thread is in, outermost first, that are instrumented and began
     * before it first counted (the Tracker engaged while they ran: a late attach), but for
     * the hook's own (the agent, from its stack); null: none. */
    private static native long[] openCalls();

    /* A thread's first counts array, its open calls on its stack (not counted), so that
     * its traces have the frames its samples have. */
    private static long[] firstCounts(long id) {
        long[] open = openCalls();
        int n = open == null ? 0 : open.length < MAX_STACK ? open.length : MAX_STACK - 1, stack = FIRST_STACK;
        while (stack <= n) stack *= 2;
        long[] b = newCounts(id, roomy(FIRST_NODES, n), stack, 0);
        for (int j = 0; j < n; j++) open(b, open[j]);
        return b;
    }

    /* An open call of `code` on top of the stack, not counted (on no node when the table
     * has no room for one). */
    private static void open(long[] b, long code) {
        int sp = (int) b[0], n = node(b, from(b), code, false);
        b[C_HEAD + sp] = (code << 24) | (n < 0 ? NO_NODE : n);
        b[0] = sp + 1;
    }

    /* One more call of the method on top of the thread's stack (at entry, push). Kept
     * out of line: inlined into every hook, its lookup and rare paths made C2 compile
     * far more code (javac: 15% more CPU in all; tiny methods called a billion times
     * pay the call instead, bench cpu 3-8%). */
    @DontInline
    private static void count(long code, boolean push) {
        long id = threadId(Thread.currentThread());
        long[] b = bufferOf(id);
        if (push && b[0] == b[4]) b = rebuilt(id, b);
        int n = node(b, from(b), code, false);
        if (n < 0 && (n = node((b = rebuilt(id, b)), from(b), code, false)) < 0) return;
        b[nodes(b) + 3 * n + 1]++;
        if (push) {
            int sp = (int) b[0];
            if (sp < b[4]) {
                b[C_HEAD + sp] = (code << 24) | n;
                b[0] = sp + 1;
            }
        }
    }

    /* An exit closes the newest open call of its method (those above it ended by an
     * exception); one with no entry (begun before the Tracker was engaged) closes none. */
    @DontInline
    private static void exit(long code) {
        long[] b = bufferOf(threadId(Thread.currentThread()));
        for (int j = (int) b[0] - 1; j >= 0; j--) {
            if (b[C_HEAD + j] >>> 24 == code) {
                b[0] = j;
                return;
            }
        }
    }

    /*
     * A thread's counts outgrew their array: the agent takes them, and a new array (the
     * stack or the node table twice as large where full, up to their limits) starts a new
     * generation with only the nodes of the open calls. A stack still full at its limit
     * stops growing: the calls above it are counted on its top.
     */
    private static long[] rebuilt(long id, long[] b) {
        lock();
        try {
            return rebuiltHeld(id, b);
        } finally {
            unlock();
        }
    }

    private static long[] rebuiltHeld(long id, long[] b) {
        long[][] t = table;
        int slot = slotOf(t, id);
        if (slot < 0 || t[slot] != b) return b;
        counted(id, b, null, false);
        int sp = (int) b[0], stack = (int) b[4], nodes = (int) b[3];
        if (sp == stack && stack < MAX_STACK) stack *= 2;
        if (4 * b[2] >= nodes && nodes < MAX_NODES) nodes *= 2;
        nodes = roomy(nodes, sp);
        long[] nb = newCounts(id, nodes, stack, b[5] + 1);
        for (int j = 0; j < sp && j < stack; j++) open(nb, b[C_HEAD + j] >>> 24);
        t[slot] = nb;
        return nb;
    }

    /* Called by the agent at the ThreadEnd of t, on t, under the lock (the agent takes it):
     * its last hand-over; the slot goes. */
    private static void ended(Thread t) {
        long[][] tb = table;
        int i = slotOf(tb, threadId(t));
        if (i < 0) return;
        long[] b = tb[i];
        giveUp(b, null, true);
        tb[i] = GONE;
        owners[i] = null;
        recycle(b);
    }

    /* Called by the agent at VM death, once disengaged, under the lock (the agent takes
     * it): what every thread still holds. */
    private static void handOverAll() {
        long[][] t = table;
        for (int i = 0; i < t.length; i++) {
            long[] b = t[i];
            if (b == null || b == GONE) continue;
            Thread o = owners[i];
            giveUp(b, o == Thread.currentThread() ? null : o, false);
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
    public static native void newObject(Object obj, Class<?> cls);
    public static native void newArray(Object obj);

    /* heap=sites: after a call of clone() that ran Object.clone (newClone) or may have run
     * an override of it (newVirtualClone), with what it returned. */
    public static native void newClone(Object obj);
    public static native void newVirtualClone(Object obj);

    /* At the entry of java.lang.Object.<init>: a new object (and its class, which the
     * natives bound later take from the instrumented code). */
    public static void ObjectInit(Object obj, Class<?> cls) {
        if (allocs != 0) allocated(obj, false);
    }

    /* Right after newarray, anewarray or multianewarray: a new array. */
    public static void NewArray(Object obj) {
        if (allocs != 0) allocated(obj, true);
    }

    /*
     * heap=sites,callers=sampled (src/sources/alloc/alloc_counted.c): the agent numbers
     * every allocating bytecode (a site: method, bytecode index, class), and the hook
     * after it counts the allocation in the current thread's own counters, in Java: no
     * object passed, no native call, no lock, no line another thread writes. Site numbers
     * are global and dense; a thread's counters come in pages of PAGE sites, made when it
     * first allocates at one of them. Per site, STRIDE longs: the objects, their bytes
     * (arrays; objects' bytes the agent takes from their class's size), the count at which
     * the thread next samples the site's callers (sampled: the agent walks the stack and
     * says when next), and the objects and bytes at the last sample (what it stands for).
     *
     * A thread's pages, its directory: [0] {thread id}, then page p at p + 1. The
     * directories are found in sTable as the event buffers are in table (open addressing
     * by thread id, changed under the lock). Those of threads no longer alive are added
     * into `retired` when the table is rebuilt; sitesSum (a dump) reads them all.
     */
    private static final int PAGE_BITS = 8, PAGE = 1 << PAGE_BITS, STRIDE = 5;
    private static final int N = 0, BYTES = 1, MARK = 2, AT_N = 3, AT_BYTES = 4;
    private static final long[][] S_GONE = {{-1}};
    private static volatile long[][][] sTable = new long[MIN_SLOTS][][];
    private static Thread[] sOwners = new Thread[MIN_SLOTS];
    private static int sUsed;
    private static long[] retired = new long[0];
    /* An array's bytes by element code (newarray's atype 4..11, 12 references): the
     * header, and the shift of its element size; set by the agent from the JVM's own
     * sizes before it counts (compressed oops or not, compact headers). */
    private static final long[] ARRAY_BASE = new long[13];
    private static final int[] ARRAY_SHIFT = new int[13];

    /* The callers of the allocation just counted at site (the thread's n-th there,
     * standing for n - at objects and bytes - atBytes) are sampled: returns the count
     * of the thread's next sample at the site. */
    private static native long sampled(int site, long n, long objs, long bytes);

    private static long[] sitePage(int site) {
        long id = threadId(Thread.currentThread());
        long[][][] t = sTable;
        long[][] d = t[(int) id & (t.length - 1)];
        int p = (site >>> PAGE_BITS) + 1;
        if (d != null && d[0][0] == id && p < d.length) {
            long[] page = d[p];
            if (page != null) return page;
        }
        return newPage(id, p);
    }

    @DontInline
    private static long[] newPage(long id, int p) {
        lock();
        try {
            long[][][] t = sTable;
            int i = sSlot(t, id);
            if (i < 0) i = sClaim(id);
            long[][] d = sTable[i];
            if (p >= d.length) {
                int n = d.length;
                while (n <= p) n *= 2;
                long[][] wider = new long[n][];
                System.arraycopy(d, 0, wider, 0, d.length);
                sTable[i] = d = wider;
            }
            if (d[p] == null) d[p] = new long[PAGE * STRIDE];
            return d[p];
        } finally {
            unlock();
        }
    }

    private static int sSlot(long[][][] t, long id) {
        int mask = t.length - 1;
        for (int i = (int) id & mask; t[i] != null; i = (i + 1) & mask)
            if (t[i][0][0] == id) return i;
        return -1;
    }

    /* A directory for the current thread, under the lock: its slot. */
    private static int sClaim(long id) {
        long[][][] t = sTable;
        if (2 * (sUsed + 1) > t.length) {
            sRebuild();
            t = sTable;
        }
        int mask = t.length - 1, i = (int) id & mask;
        while (t[i] != null && t[i] != S_GONE) i = (i + 1) & mask;
        long[][] d = new long[8][];
        d[0] = new long[] {id};
        sOwners[i] = Thread.currentThread();
        if (t[i] == null) sUsed++;
        t[i] = d;
        return i;
    }

    /* The directories of threads no longer alive go into `retired`; a table at most a
     * quarter full for the rest. */
    private static void sRebuild() {
        long[][][] t = sTable;
        Thread[] o = sOwners;
        int live = 0;
        for (int i = 0; i < t.length; i++) {
            if (t[i] == null || t[i] == S_GONE) continue;
            if (o[i].isAlive()) {
                live++;
            } else {
                retired = addInto(retired, t[i]);
                o[i] = null;
            }
        }
        int n = MIN_SLOTS;
        while (n < 4 * (live + 1)) n *= 2;
        long[][][] nt = new long[n][][];
        Thread[] no = new Thread[n];
        for (int i = 0; i < t.length; i++) {
            if (o[i] == null || t[i] == null || t[i] == S_GONE) continue;
            int j = (int) t[i][0][0] & (n - 1);
            while (nt[j] != null) j = (j + 1) & (n - 1);
            nt[j] = t[i];
            no[j] = o[i];
        }
        sOwners = no;
        sUsed = live;
        sTable = nt;
    }

    /* sums (objects, bytes of each site, two longs a site) plus directory d's counts;
     * grown if d has more sites. */
    private static long[] addInto(long[] sums, long[][] d) {
        int need = 2 * PAGE * (d.length - 1);
        if (sums.length < need) {
            long[] wider = new long[need];
            System.arraycopy(sums, 0, wider, 0, sums.length);
            sums = wider;
        }
        for (int p = 1; p < d.length; p++) {
            long[] page = d[p];
            if (page == null) continue;
            int base = 2 * PAGE * (p - 1);
            for (int k = 0; k < PAGE; k++) {
                sums[base + 2 * k] += page[k * STRIDE + N];
                sums[base + 2 * k + 1] += page[k * STRIDE + BYTES];
            }
        }
        return sums;
    }

    /* Called by the agent at a dump: every site's objects and bytes so far, all threads
     * (racy reads of counts that only grow: a count being made now may be missed, and is
     * taken at the next dump). */
    private static long[] sitesSum() {
        lock();
        try {
            long[] sums = new long[retired.length];
            System.arraycopy(retired, 0, sums, 0, retired.length);
            long[][][] t = sTable;
            for (int i = 0; i < t.length; i++)
                if (t[i] != null && t[i] != S_GONE) sums = addInto(sums, t[i]);
            return sums;
        } finally {
            unlock();
        }
    }

    @DontInline
    private static void sample(int site, long[] page, int i) {
        long n = page[i + N], b = page[i + BYTES];
        page[i + MARK] = sampled(site, n, n - page[i + AT_N], b - page[i + AT_BYTES]);
        page[i + AT_N] = n;
        page[i + AT_BYTES] = b;
    }

    /* After `new` (the object, not yet constructed, stays on the stack). */
    public static void newSite(int site) {
        if (allocs != 0) countObject(site);
    }

    private static void countObject(int site) {
        long[] page = sitePage(site);
        int i = (site & (PAGE - 1)) * STRIDE;
        if (++page[i + N] >= page[i + MARK]) sample(site, page, i);
    }

    private static void countArray(int site, int length, int code) {
        long[] page = sitePage(site);
        int i = (site & (PAGE - 1)) * STRIDE;
        page[i + BYTES] += (ARRAY_BASE[code] + ((long) length << ARRAY_SHIFT[code]) + 7) & ~7L;
        if (++page[i + N] >= page[i + MARK]) sample(site, page, i);
    }

    /* After newarray and anewarray: the length, the site, the element code. */
    public static void arraySite(int length, int site, int code) {
        if (allocs != 0) countArray(site, length, code);
    }

    /* After multianewarray: the array it made and the first of its sites, one per
     * dimension made: each array it holds (new, nothing else can have stored there
     * yet) is counted at the next one. */
    public static void multiSite(Object array, int site) {
        if (allocs != 0 && array != null) countLevel(array, site);
    }

    private static void countLevel(Object a, int site) {
        if (a instanceof Object[]) {
            Object[] o = (Object[]) a;
            countArray(site, o.length, 12);
            for (int k = 0; k < o.length; k++)
                if (o[k] != null) countLevel(o[k], site + 1);
        } else if (a instanceof int[]) {
            countArray(site, ((int[]) a).length, 10);
        } else if (a instanceof long[]) {
            countArray(site, ((long[]) a).length, 11);
        } else if (a instanceof byte[]) {
            countArray(site, ((byte[]) a).length, 8);
        } else if (a instanceof char[]) {
            countArray(site, ((char[]) a).length, 5);
        } else if (a instanceof double[]) {
            countArray(site, ((double[]) a).length, 7);
        } else if (a instanceof float[]) {
            countArray(site, ((float[]) a).length, 6);
        } else if (a instanceof short[]) {
            countArray(site, ((short[]) a).length, 9);
        } else if (a instanceof boolean[]) {
            countArray(site, ((boolean[]) a).length, 4);
        }
    }

    /* An object the VM made of a class the agent gives no site: counted one by one with its
     * trace. */
    private static native void allocatedInstance(Object obj);

    /* After a call of a native that returns an object the VM made with no bytecode that
     * allocates (Unsafe.allocateInstance: reflection, deserialisation, method handles;
     * Array.newArray; reflection's native newInstance0; Object.clone): the object, and the
     * number the agent gave the call. */
    public static void allocInst(Object obj, int call) {
        if (allocs != 0 && obj != null) countMade(obj, call);
    }

    /* The same after a native whose result holds more objects it made: each level of
     * Array.multiNewArray's arrays; the fresh elements of Class.getDeclaredFields0's and
     * its kin's arrays (one level: what those hold is shared). */
    public static void madeAll(Object obj, int call) {
        if (allocs != 0 && obj != null) countAll(obj, call);
    }

    private static void countAll(Object obj, int call) {
        countMade(obj, call);
        if (obj instanceof Object[]) {
            Object[] a = (Object[]) obj;
            for (int k = 0; k < a.length; k++) {
                Object e = a[k];
                if (e == null) continue;
                if (e.getClass().isArray())
                    countAll(e, call);
                else
                    countMade(e, call);
            }
        }
    }

    /* After any other call of clone(): an override may have run, which counted its own
     * copy; the agent tells. */
    public static void clonedVirtual(Object obj) {
        if (allocs != 0 && obj != null) newVirtualClone(obj);
    }

    /* (The agent turns `allocs` on only once its natives are bound.) */
    private static void countMade(Object obj, int call) {
        countInstance(obj.getClass(), call, obj);
    }

    /* callers=sampled: the bytes of a class MethodHandles.Lookup is about to define, from
     * ClassDefiner.defineClass (definer: the ClassDefiner). A hidden class (lambda proxies,
     * JDK 24+'s string concatenation) reaches no class-file hook: the agent instruments
     * it here (src/sources/bci/hidden_classes.c); other classes come back as they are. */
    private static volatile boolean hiddenOn;
    private static native byte[] instrumentHidden(byte[] b, Object definer);

    public static byte[] definingClass(byte[] b, Object definer) {
        return hiddenOn && b != null ? instrumentHidden(b, definer) : b;
    }

    /*
     * callers=sampled: the objects the VM makes (allocateInstance's: method handles make
     * every capturing lambda with it, javac millions a round; arrays of Array.newInstance;
     * copies) are counted as a `new` is, at a site of their class's own for each call the
     * agent numbers on first sight. instTable finds it by the class and call: pairs of a
     * WeakReference to the class (a class loader can still be unloaded) and int[] {site,
     * element code of an array class or -1, call}, open addressing by identity hash and
     * call, copied and replaced whole under the lock (readers never see a pair half made).
     */
    private static volatile Object[] instTable = new Object[2 * 64];

    /* The number of the site of class c's objects made for call `call`, or -1 (none:
     * counted natively). */
    private static native int instanceSite(Class<?> c, int call);

    private static int slot(Class<?> c, int call, int mask) {
        return (System.identityHashCode(c) + call * 0x9e3779b9) & mask;
    }

    private static void countInstance(Class<?> c, int call, Object obj) {
        Object[] t = instTable;
        int mask = (t.length >> 1) - 1;
        for (int i = slot(c, call, mask);; i = (i + 1) & mask) {
            Object k = t[2 * i];
            if (k == null) break;
            int[] site = (int[]) t[2 * i + 1];
            if (site[2] == call && ((java.lang.ref.WeakReference<?>) k).get() == c) {
                countAt(site, obj);
                return;
            }
        }
        int[] site = newInstanceSite(c, call);
        if (site != null)
            countAt(site, obj);
        else
            allocatedInstance(obj);
    }

    private static void countAt(int[] site, Object obj) {
        if (site[1] < 0)
            countObject(site[0]);
        else
            countArray(site[0], java.lang.reflect.Array.getLength(obj), site[1]);
    }

    /* newarray's atype (4..11) of an array class's primitive elements, 12 for references,
     * -1 for a class that is no array. */
    private static int elementCode(Class<?> c) {
        Class<?> e = c.getComponentType();
        if (e == null) return -1;
        if (!e.isPrimitive()) return 12;
        return e == boolean.class ? 4 : e == char.class ? 5 : e == float.class ? 6 : e == double.class ? 7
            : e == byte.class ? 8 : e == short.class ? 9 : e == int.class ? 10 : 11;
    }

    @DontInline
    private static int[] newInstanceSite(Class<?> c, int call) {
        int number = instanceSite(c, call);
        if (number < 0) return null;
        int[] site = {number, elementCode(c), call};
        lock();
        try {
            Object[] t = instTable;
            int live = 0;
            for (int i = 0; i < t.length; i += 2)
                if (t[i] != null && ((java.lang.ref.WeakReference<?>) t[i]).get() != null) live++;
            int n = t.length >> 1;
            while (4 * (live + 1) > n) n *= 2;
            Object[] nt = new Object[2 * n];
            for (int i = 0; i < t.length; i += 2) {
                Object k = t[i] == null ? null : ((java.lang.ref.WeakReference<?>) t[i]).get();
                int[] s = (int[]) t[i + 1];
                if (k != null && !(k == c && s[2] == call)) put(nt, (Class<?>) k, t[i], s);
            }
            put(nt, c, new java.lang.ref.WeakReference<Class<?>>(c), site);
            instTable = nt;
        } finally {
            unlock();
        }
        return site;
    }

    private static void put(Object[] t, Class<?> c, Object ref, int[] site) {
        int mask = (t.length >> 1) - 1, i = slot(c, site[2], mask);
        while (t[2 * i] != null) i = (i + 1) & mask;
        t[2 * i] = ref;
        t[2 * i + 1] = site;
    }

    /*
     * monitor=y on java.util.concurrent (src/sources/monitor/juc_waits.c): the agent
     * rewrites LockSupport's parks (class 0: the entry hook with the park's blocker, the
     * exit hook) and the slow acquire paths of AbstractQueuedSynchronizer,
     * AbstractQueuedLongSynchronizer and StampedLock (classes 1-3: the exit hook alone),
     * nothing else. The hooks run only on the waiting path; while `waits` is off they
     * return at once.
     */
    private static volatile boolean waits;

    private static native void parkBegin(int c, int m, Thread t, Object blocker);
    private static native void waitEnd(int c, int m, Thread t);

    public static void JucEntry(int c, int m, Object blocker) {
        if (waits) parkBegin(c, m, Thread.currentThread(), blocker);
    }

    public static void JucExit(int c, int m) {
        if (waits) waitEnd(c, m, Thread.currentThread());
    }
}
