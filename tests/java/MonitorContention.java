/**
 * A known monitor pattern for monitor=y.
 *
 *   MonitorContention [ROUNDS [HOLD_MS [EXTRA_WAIT_MS]]]
 *
 * main holds a Lock and, each round, keeps it until the contender thread is BLOCKED
 * on it, then for HOLD_MS more: the contender enters Lock exactly ROUNDS times, each
 * time contended. A third thread waits in Signal.wait() through all the rounds and
 * EXTRA_WAIT_MS more, then is notified: one wait, longer than all the blocking.
 * With "dump" as the 4th argument, main prints READY while it holds Lock with the
 * contender blocked and the waiter waiting, and keeps that state for 3 s (so a test
 * can send SIGQUIT). Exits with status 3.
 */
public class MonitorContention {
    static final class Lock {}
    static final class Signal {}

    static final Lock lock = new Lock();
    static final Signal signal = new Signal();
    static volatile int wanted;      // the round the contender should enter for
    static volatile int entered;     // the last round it entered (and left)
    static volatile boolean waiting;
    static volatile boolean notified;

    // Waits poll with sleep(1), so no loop runs hot enough to be compiled: every
    // contended enter is then seen at the same place, in enter().
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

    static void waiter() throws InterruptedException {
        synchronized (signal) {
            waiting = true;
            while (!notified) signal.wait();
        }
    }

    // The holding side of the rounds (main's here, MonitorJoin's holder thread there).
    static void hold(Thread c, int rounds, int holdMs, boolean dump) throws InterruptedException {
        for (int i = 1; i <= rounds; i++) {
            synchronized (lock) {
                wanted = i;
                while (c.getState() != Thread.State.BLOCKED) pause();
                Thread.sleep(holdMs);
                if (dump && i == rounds) {
                    System.out.println("READY");
                    System.out.flush();
                    Thread.sleep(3000);
                }
            }
            while (entered < i) pause();
        }
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int holdMs = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        int extraMs = args.length > 2 ? Integer.parseInt(args[2]) : 300;
        boolean dump = args.length > 3 && args[3].equals("dump");
        Thread c = new Thread(() -> contender(rounds), "contender");
        Thread w = new Thread(() -> {
            try { waiter(); } catch (InterruptedException e) { throw new RuntimeException(e); }
        }, "waiter");
        w.start();
        while (!waiting || w.getState() != Thread.State.WAITING) pause();
        c.start();
        hold(c, rounds, holdMs, dump);
        c.join();
        Thread.sleep(extraMs);
        synchronized (signal) {
            notified = true;
            signal.notifyAll();
        }
        w.join();
        System.out.println("done " + rounds + " rounds");
        System.exit(3);
    }
}
