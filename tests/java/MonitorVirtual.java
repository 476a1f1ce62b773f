import java.util.ArrayList;
import java.util.List;

/**
 * monitor=y under many threads, virtual ones where the JDK has them (21+): N threads
 * each enter one shared lock ROUNDS times (holding it briefly, so enters contend), and
 * every 10th round waits a little on it. Prints the total count, which does not depend
 * on timing, and exits 0.
 */
public class MonitorVirtual {
    static final Object lock = new Object();
    static long count;

    static void work(int rounds) {
        for (int r = 0; r < rounds; r++) {
            synchronized (lock) {
                count++;
                try {
                    if (r % 10 == 0) lock.wait(1);
                    else Thread.sleep(0, 100000);
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
                lock.notifyAll();
            }
        }
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        List<Thread> all = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Thread t = VirtualThreads.start(() -> work(rounds));
            all.add(t);
        }
        for (Thread t : all) t.join();
        System.out.println("count " + count);
    }
}
