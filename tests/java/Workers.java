import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/*
 * Many threads at once: `platform` threads that compute, `idle` threads that block, and
 * (on JDK 21+) `virtual` virtual threads that compute. Prints a checksum that does not
 * depend on timing, so runs with and without the agent can be compared.
 *   java Workers PLATFORM IDLE VIRTUAL
 */
public class Workers {
    static long work(int seed) {
        long s = seed;
        for (int i = 0; i < 3_000_000; i++) s = s * 6364136223846793005L + 1442695040888963407L;
        return s;
    }

    public static void main(String[] args) throws Exception {
        int platform = Integer.parseInt(args[0]);
        int idle = Integer.parseInt(args[1]);
        int virtual = Integer.parseInt(args[2]);
        long[] results = new long[platform + virtual];
        CountDownLatch release = new CountDownLatch(1);
        List<Thread> idlers = new ArrayList<>();
        for (int i = 0; i < idle; i++) {
            Thread t = new Thread(() -> {
                try { release.await(); } catch (InterruptedException e) { }
            }, "idle-" + i);
            t.setDaemon(true);          // never keeps the JVM alive if main fails
            t.start();
            idlers.add(t);
        }
        List<Thread> busy = new ArrayList<>();
        for (int i = 0; i < platform; i++) {
            final int k = i;
            Thread t = new Thread(() -> results[k] = work(k), "worker-" + i);
            t.start();
            busy.add(t);
        }
        for (int i = 0; i < virtual; i++) {
            final int k = platform + i;
            busy.add(VirtualThreads.start(() -> results[k] = work(k)));
        }
        for (Thread t : busy) t.join();
        release.countDown();
        for (Thread t : idlers) t.join();
        long sum = 0;
        for (long r : results) sum ^= r;
        System.out.println("checksum " + Long.toHexString(sum));
    }
}
