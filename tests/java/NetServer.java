/**
 * A long-lived program to drive over the net= socket.
 *
 *   NetServer [MILLIS [quiet]]
 *
 * Two busy threads: "spin-a" burns CPU in spinA() at the bottom of a 12-deep
 * recursion (deep()), "spin-b" in spinB(), allocating as it goes. main prints
 * "started", waits MILLIS ms (default 20000), prints "finished" and exits with
 * status 4, unless the agent is told to end the VM first. With "quiet" the two threads
 * sleep instead of spinning (a peer that needs no samples, only the socket: 2 CPUs
 * spared for MILLIS).
 */
public class NetServer {
    static volatile long sink;
    static volatile Object keep;

    static long spinA(long n) {
        long s = 0;
        for (long i = 0; i < n; i++) s += (i * 31) ^ (s >>> 3);
        return s;
    }

    static long spinB(long n) {
        long s = 0;
        for (long i = 0; i < n; i++) s += (i * 17) ^ (s >>> 5);
        keep = new int[64];
        return s;
    }

    static long nap() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            return 0;
        }
        return 1;
    }

    static long deep(int d) {
        return d == 0 ? spinA(200000) : deep(d - 1) + 1;
    }

    public static void main(String[] args) throws Exception {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 20000;
        boolean quiet = args.length > 1 && args[1].equals("quiet");
        Thread a = new Thread(() -> { while (true) sink += quiet ? nap() : deep(12); }, "spin-a");
        Thread b = new Thread(() -> { while (true) sink += quiet ? nap() : spinB(200000); }, "spin-b");
        a.setDaemon(true);
        b.setDaemon(true);
        a.start();
        b.start();
        System.out.println("started");
        System.out.flush();
        Thread.sleep(ms);
        System.out.println("finished");
        System.exit(4);
    }
}
