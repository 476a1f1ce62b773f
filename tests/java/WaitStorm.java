/**
 * Many waits, quickly: two threads hand a token back and forth with wait/notify, so
 * that monitor=y writes a MONITOR WAIT and a MONITOR WAITED record for each hand-over
 * while the program runs. KEEP thousand small arrays stay reachable to the end, for a
 * heap dump at exit with many records. With WAIT_MS, it then prints "ready" and sleeps
 * that long (for signals).
 *
 *   WaitStorm [HANDOVERS [KEEP [WAIT_MS]]]      prints "done N" and exits with status 0
 */
public class WaitStorm {
    static final Object token = new Object();
    static int turn;     // whose turn it is: 0 or 1 (guarded by token)
    static int[][] kept;

    static void play(int me, int rounds) throws InterruptedException {
        synchronized (token) {
            for (int i = 0; i < rounds; i++) {
                while (turn != me) token.wait();
                turn = 1 - me;
                token.notifyAll();
            }
        }
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 100000;
        kept = new int[(args.length > 1 ? Integer.parseInt(args[1]) : 0) * 1000][2];
        Thread other = new Thread(() -> {
            try { play(1, n); } catch (InterruptedException e) { throw new RuntimeException(e); }
        }, "other");
        other.start();
        play(0, n);
        other.join();
        if (args.length > 2) {
            System.out.println("ready");
            Thread.sleep(Long.parseLong(args[2]));
        }
        System.out.println("done " + n);
    }
}
