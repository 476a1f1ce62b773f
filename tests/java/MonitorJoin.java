/**
 * Long waits next to brief contention, for monitor=y: MONITOR TIME must list only the
 * contention, the waits going to MONITOR WAIT TIME.
 *
 *   MonitorJoin [JOIN_MS [ROUNDS [HOLD_MS]]]
 *
 * main starts a sleeper thread that sleeps JOIN_MS and joins it: one long wait on the
 * sleeper's java.lang.Thread. Meanwhile a waiter waits JOIN_MS / 2 in Signal.wait(timeout)
 * (nobody notifies it), and a holder thread takes a Lock and keeps it, each round, until
 * the contender thread is BLOCKED on it, then HOLD_MS more: ROUNDS contended enters of
 * MonitorJoin$Lock at MonitorJoin.enter, far shorter in all than the join. Prints
 * "joined" and exits 0.
 */
public class MonitorJoin {
    static final class Lock {}
    static final class Signal {}

    static final Lock lock = new Lock();
    static final Signal signal = new Signal();
    static volatile int wanted;      // the round the contender should enter for
    static volatile int entered;     // the last round it entered (and left)

    // Polls sleep(1), so no loop runs hot enough to be compiled: every contended enter
    // is seen at the same place, in enter().
    static void pause() {
        try { Thread.sleep(1); } catch (InterruptedException e) { throw new RuntimeException(e); }
    }

    static void enter(int round) {
        synchronized (lock) {
            entered = -round;
        }
    }

    static void contender(int rounds) {
        for (int i = 1; i <= rounds; i++) {
            while (wanted < i) pause();
            enter(i);
            entered = i;
        }
    }

    static void holder(Thread contender, int rounds, int holdMs) {
        for (int i = 1; i <= rounds; i++) {
            synchronized (lock) {
                wanted = i;
                while (contender.getState() != Thread.State.BLOCKED) pause();
                try { Thread.sleep(holdMs); } catch (InterruptedException e) { throw new RuntimeException(e); }
            }
            while (entered < i) pause();
        }
    }

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
        Thread c = new Thread(() -> contender(rounds), "contender");
        Thread h = new Thread(() -> holder(c, rounds, holdMs), "holder");
        Thread w = new Thread(() -> waiter(joinMs / 2), "waiter");
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
