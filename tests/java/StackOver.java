import java.util.ArrayList;
import java.util.List;

/* Recurses until the stack overflows and catches the error, as a recursive parser that
 * guards itself would: five times (or args[0] times) on the main thread, once on a side
 * thread, allocating on the way down (so the hooks run in the last frames there is room
 * for). Prints "overflowed 6" (one more than the main thread's), then how many calls of
 * down() were made, and exits 0. */
public class StackOver {
    static int deepest;
    static int overflowed;
    static long calls;
    static final List<Object> KEEP = new ArrayList<>();

    static int down(int n) {
        calls++;
        if (n > deepest) deepest = n;
        Object o = new int[1 + (n & 3)];
        if ((n & 1023) == 0) KEEP.add(o);
        return down(n + 1) + 1;
    }

    static synchronized void overflow() {
        try {
            down(0);
        } catch (StackOverflowError e) {
            overflowed++;
        }
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        for (int i = 0; i < rounds; i++) overflow();
        Thread t = new Thread(StackOver::overflow, "side");
        t.start();
        t.join();
        System.out.println(deepest > 1000 ? "overflowed " + overflowed : "too shallow " + deepest);
        System.out.println("down " + calls);
    }
}
