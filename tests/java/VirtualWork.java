/*
 * 1,000 virtual threads (platform threads before JDK 21) that each spend their CPU in
 * vwork(): samples on their carriers must name vwork, not the carriers' own frames.
 */
import java.util.ArrayList;
import java.util.List;

public class VirtualWork {
    static volatile long sink;

    static long vwork(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) s += (i * 0x9E3779B9L) ^ (s >>> 9);
        return s;
    }

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            all.add(VirtualThreads.start(() -> {
                for (int r = 0; r < rounds; r++) {
                    sink += vwork(200_000);
                    Thread.yield();
                }
            }));
        }
        for (Thread t : all) t.join();
        System.out.println("virtual=" + VirtualThreads.available());
        System.out.println("done");
    }
}
