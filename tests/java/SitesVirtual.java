import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * heap=sites on virtual threads (JDK 21+; platform threads before): N threads each make
 * ROUNDS Item objects in make(), some of them after a park (so their stacks are frozen
 * and thawed again), and keep them all. Prints "items N*ROUNDS".
 *   SitesVirtual [N (default 50)] [ROUNDS (default 100)]
 */
public class SitesVirtual {
    static final class Item {
        final int n;
        Item(int n) { this.n = n; }
    }

    static final List<Object> keep = Collections.synchronizedList(new ArrayList<>());

    static void make(int rounds) {
        for (int i = 0; i < rounds; i++) {
            if (i % 25 == 0) Thread.yield();
            keep.add(new Item(i));
        }
    }

    static void nested(int depth, int rounds) {
        if (depth == 0) make(rounds);
        else nested(depth - 1, rounds);
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 50;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        List<Thread> all = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int depth = i % 3;
            Thread t = VirtualThreads.start(() -> nested(depth, rounds));
            all.add(t);
        }
        for (Thread t : all) t.join();
        System.out.println("items " + keep.size());
        System.out.println("virtual=" + VirtualThreads.available());
    }
}
