/**
 * Long waits next to brief contention, for monitor=y: MONITOR TIME must list only the
 * contention, the waits going to MONITOR WAIT TIME.
 *
 *   MonitorJoin [JOIN_MS [ROUNDS [HOLD_MS]]]
 *
 * main starts a sleeper thread that sleeps JOIN_MS and joins it: one long wait on the
 * sleeper's java.lang.Thread. Meanwhile a waiter waits JOIN_MS / 2 in Signal.wait(timeout)
 * (nobody notifies it), and MonitorContention's rounds run between a holder thread and
 * a contender: ROUNDS contended enters of MonitorContention$Lock (at
 * MonitorContention.enter) of about HOLD_MS each, far shorter in all than the join.
 * Prints "joined" and exits 0.
 */
public class MonitorJoin {
    static final class Signal {}

    static final Signal signal = new Signal();

    static void waiter(long ms) {
        synchronized (signal) {
            try { signal.wait(ms); } catch (InterruptedException e) { throw new RuntimeException(e); }
        }
    }

    public static void main(String[] args) throws Exception {
        int joinMs = args.length > 0 ? Integer.parseInt(args[0]) : 1500;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int holdMs = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        Thread sleeper = new Thread(() -> {
            try { Thread.sleep(joinMs); } catch (InterruptedException e) { throw new RuntimeException(e); }
        }, "sleeper");
        Thread c = new Thread(() -> MonitorContention.contender(rounds), "contender");
        Thread h = new Thread(() -> {
            try { MonitorContention.hold(c, rounds, holdMs, false); } catch (InterruptedException e) { throw new RuntimeException(e); }
        }, "holder");
        Thread w = new Thread(() -> waiter(joinMs / 2), "waiter");
        // The threads would otherwise load MonitorContention and Thread.State at once, and
        // blocking on a class loading lock is contention too: main loads them first.
        MonitorContention.pause();
        if (c.getState() != Thread.State.NEW) throw new AssertionError(c.getState());
        sleeper.start();
        w.start();
        c.start();
        h.start();
        sleeper.join();
        h.join();
        c.join();
        w.join();
        System.out.println("joined");
    }
}
