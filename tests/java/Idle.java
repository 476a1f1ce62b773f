/*
 * Threads that use no CPU: "sleeper" sleeps, "blocked" waits to enter a monitor that
 * "holder" keeps while it spins. CPU samples belong to holder (and main) only; wall
 * samples find all three, with their states.
 */
public class Idle {
    static final Object LOCK = new Object();
    static volatile boolean running = true;
    static volatile long sink;

    static void sleepHere() throws InterruptedException {
        while (running) Thread.sleep(50);
    }

    static void blockHere() {
        synchronized (LOCK) {
            sink++;
        }
    }

    static void spinHolding(long ms) {
        synchronized (LOCK) {
            long end = System.nanoTime() + ms * 1_000_000L;
            while (System.nanoTime() < end) sink += sink * 31 + 7;
        }
    }

    public static void main(String[] args) throws Exception {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 1500;
        Thread holder = new Thread(() -> spinHolding(ms), "holder");
        holder.start();
        while (!Thread.holdsLock(LOCK) && holder.getState() == Thread.State.NEW) Thread.sleep(1);
        Thread.sleep(20);
        Thread sleeper = new Thread(() -> {
            try {
                sleepHere();
            } catch (InterruptedException e) {
                return;
            }
        }, "sleeper");
        Thread blocked = new Thread(Idle::blockHere, "blocked");
        sleeper.start();
        blocked.start();
        holder.join();
        running = false;
        blocked.join();
        sleeper.join();
        System.out.println("done");
    }
}
