import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.concurrent.locks.StampedLock;

/*
 * Waits on java.util.concurrent with known answers (tests/integration/monitor_juc.sh).
 *
 *   JucLocks lock|rw|sem|stamped N HOLD_MS
 *       main takes the lock (a ReentrantLock, the read lock of a ReentrantReadWriteLock, a
 *       Semaphore of one permit, a StampedLock's write lock) N times and holds it HOLD_MS
 *       each time, while the thread "contender" asks for it (the write lock for rw): N
 *       acquisitions that waited, each HOLD_MS or more once the contender is parked (the
 *       sum printed: "held MS ms"). The rounds are handed over through volatiles, so
 *       nothing else of j.u.c parks.
 *   JucLocks await|take N HOLD_MS
 *       the thread "waiter" waits N times, HOLD_MS each, on a Condition (await) or on an
 *       empty LinkedBlockingQueue (take) until main signals or puts.
 *   JucLocks dump HOLD_MS
 *       main holds a ReentrantLock that "contender-1" and "contender-2" wait for, and
 *       "waiter" awaits a Condition of another lock; prints READY, then holds HOLD_MS.
 *   JucLocks virtual N HOLD_MS
 *       main holds a ReentrantLock HOLD_MS while N virtual threads (platform ones before
 *       JDK 21) wait for it.
 *   JucLocks attach SECONDS
 *       lock rounds of 20 ms for SECONDS (a run to attach to), prints READY first.
 *   JucLocks mixed N HOLD_MS
 *       one thread, "contender", waits 5N times in turn: in siteA for ReentrantLock a, in
 *       siteA for ReentrantLock b, in siteB for a, in siteS for a Semaphore, in siteS for a
 *       fair Semaphore, N times each, while main holds each HOLD_MS: with depth=2 that is
 *       2N contentions at siteA, N at siteB (all ReentrantLock), N of the Semaphore and N
 *       of the fair one at siteS (one place, two classes): the agent's memory of a
 *       thread's last wait must not mix them up.
 */
public class JucLocks {
    static volatile int round, done;

    static void spinUntil(java.util.function.IntSupplier v, int want) {
        while (v.getAsInt() < want) Thread.yield();
    }

    /* Until t is parked (so that every round is a contention, however late it runs). */
    static void parked(Thread t) {
        while (t.getState() != Thread.State.WAITING) Thread.yield();
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    interface Lockish {
        void hold();      // main's
        void release();
        void contend();   // the contender's: acquire and release
    }

    static Lockish of(String kind) {
        switch (kind) {
        case "lock": {
            ReentrantLock l = new ReentrantLock();
            return new Lockish() {
                public void hold() { l.lock(); }
                public void release() { l.unlock(); }
                public void contend() { l.lock(); l.unlock(); }
            };
        }
        case "rw": {
            ReentrantReadWriteLock l = new ReentrantReadWriteLock();
            return new Lockish() {
                public void hold() { l.readLock().lock(); }
                public void release() { l.readLock().unlock(); }
                public void contend() { l.writeLock().lock(); l.writeLock().unlock(); }
            };
        }
        case "sem": {
            Semaphore s = new Semaphore(1);
            return new Lockish() {
                public void hold() { s.acquireUninterruptibly(); }
                public void release() { s.release(); }
                public void contend() { s.acquireUninterruptibly(); s.release(); }
            };
        }
        default: {
            StampedLock l = new StampedLock();
            long[] stamp = new long[1];
            return new Lockish() {
                public void hold() { stamp[0] = l.writeLock(); }
                public void release() { l.unlockWrite(stamp[0]); }
                public void contend() { long s = l.writeLock(); l.unlockWrite(s); }
            };
        }
        }
    }

    static void contended(String kind, int n, long hold) throws Exception {
        Lockish l = of(kind);
        Thread c = new Thread(() -> {
            l.contend(); // its code loaded and run once, uncontended, before the rounds
            done = 0;
            for (int i = 1; i <= n; i++) {
                spinUntil(() -> round, i);
                l.contend();
                done = i;
            }
        }, "contender");
        done = -1;
        c.start();
        spinUntil(() -> done, 0);
        long held = 0;
        for (int i = 1; i <= n; i++) {
            l.hold();
            round = i;
            parked(c);
            long t0 = System.nanoTime();
            sleep(hold);
            held += System.nanoTime() - t0;
            l.release();
            spinUntil(() -> done, i);
        }
        c.join();
        System.out.println("done " + kind + " " + n);
        System.out.println("held " + held / 1_000_000 + " ms");
    }

    static void waits(String kind, int n, long hold) throws Exception {
        ReentrantLock lock = new ReentrantLock();
        Condition cond = lock.newCondition();
        LinkedBlockingQueue<Integer> q = new LinkedBlockingQueue<>();
        boolean await = kind.equals("await");
        Thread w = new Thread(() -> {
            try {
                for (int i = 1; i <= n; i++) {
                    if (await) {
                        lock.lock();
                        try {
                            round = i;
                            while (done < i) cond.await();
                        } finally {
                            lock.unlock();
                        }
                    } else {
                        round = i;
                        q.take();
                    }
                }
            } catch (InterruptedException e) {
                throw new RuntimeException(e);
            }
        }, "waiter");
        w.start();
        for (int i = 1; i <= n; i++) {
            spinUntil(() -> round, i);
            sleep(hold);
            if (await) {
                lock.lock();
                done = i;
                cond.signal();
                lock.unlock();
            } else {
                q.put(i);
            }
        }
        w.join();
        System.out.println("done " + kind + " " + n);
    }

    static void dump(long hold) throws Exception {
        ReentrantLock lock = new ReentrantLock();
        ReentrantLock other = new ReentrantLock();
        Condition cond = other.newCondition();
        lock.lock();
        List<Thread> ts = new ArrayList<>();
        for (int i = 1; i <= 2; i++) ts.add(new Thread(() -> { lock.lock(); lock.unlock(); }, "contender-" + i));
        ts.add(new Thread(() -> {
            other.lock();
            try {
                round = 1;
                while (done == 0) cond.awaitUninterruptibly();
            } finally {
                other.unlock();
            }
        }, "waiter"));
        for (Thread t : ts) t.start();
        spinUntil(() -> round, 1);
        for (Thread t : ts) parked(t);
        System.out.println("READY");
        sleep(hold);
        lock.unlock();
        other.lock();
        done = 1;
        cond.signal();
        other.unlock();
        for (Thread t : ts) t.join();
        System.out.println("done dump");
    }

    static void virtual(int n, long hold) throws Exception {
        ReentrantLock lock = new ReentrantLock();
        lock.lock();
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < n; i++) ts.add(VirtualThreads.start(() -> { lock.lock(); lock.unlock(); }));
        for (Thread t : ts) parked(t);
        sleep(hold);
        lock.unlock();
        for (Thread t : ts) t.join();
        System.out.println("done virtual " + n);
    }

    static void attach(int seconds) throws Exception {
        ReentrantLock l = new ReentrantLock();
        Thread c = new Thread(() -> {
            for (int i = 1; ; i++) {
                spinUntil(() -> round, i);
                if (done < 0) return;
                l.lock();
                l.unlock();
                done = i;
            }
        }, "contender");
        c.start();
        System.out.println("READY");
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        for (int i = 1; System.nanoTime() < end; i++) {
            l.lock();
            round = i;
            sleep(20);
            l.unlock();
            spinUntil(() -> done, i);
        }
        done = -1;
        round = Integer.MAX_VALUE;
        c.join();
        System.out.println("done attach");
    }

    static void siteA(ReentrantLock l) { l.lock(); l.unlock(); }
    static void siteB(ReentrantLock l) { l.lock(); l.unlock(); }
    static void siteS(Semaphore s) { s.acquireUninterruptibly(); s.release(); }

    static void mixed(int n, long hold) throws Exception {
        ReentrantLock la = new ReentrantLock(), lb = new ReentrantLock();
        Semaphore sem = new Semaphore(1), fair = new Semaphore(1, true);
        Runnable[] contend = {() -> siteA(la), () -> siteA(lb), () -> siteB(la), () -> siteS(sem), () -> siteS(fair)};
        Runnable[] take = {la::lock, lb::lock, la::lock, sem::acquireUninterruptibly, fair::acquireUninterruptibly};
        Runnable[] give = {la::unlock, lb::unlock, la::unlock, sem::release, fair::release};
        int k = contend.length;
        Thread c = new Thread(() -> {
            for (Runnable r : contend) r.run(); // loaded and run once, uncontended
            done = 0;
            for (int i = 1; i <= k * n; i++) {
                spinUntil(() -> round, i);
                contend[(i - 1) % k].run();
                done = i;
            }
        }, "contender");
        done = -1;
        c.start();
        spinUntil(() -> done, 0);
        for (int i = 1; i <= k * n; i++) {
            take[(i - 1) % k].run();
            round = i;
            parked(c);
            sleep(hold);
            give[(i - 1) % k].run();
            spinUntil(() -> done, i);
        }
        c.join();
        System.out.println("done mixed " + n);
    }

    public static void main(String[] a) throws Exception {
        String kind = a[0];
        switch (kind) {
        case "await": case "take": waits(kind, Integer.parseInt(a[1]), Long.parseLong(a[2])); break;
        case "dump": dump(Long.parseLong(a[1])); break;
        case "virtual": virtual(Integer.parseInt(a[1]), Long.parseLong(a[2])); break;
        case "attach": attach(Integer.parseInt(a[1])); break;
        case "mixed": mixed(Integer.parseInt(a[1]), Long.parseLong(a[2])); break;
        default: contended(kind, Integer.parseInt(a[1]), Long.parseLong(a[2]));
        }
    }
}
