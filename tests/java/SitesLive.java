import java.io.File;
import java.util.ArrayList;
import java.util.List;

/*
 * Live counts of heap=sites at a dump taken while the program runs and at exit.
 *   SitesLive FLAGFILE: keeps 100000 Kept and every other one of 50000 Half, drops
 *   200000 Dropped, churns through 3,000,000 short-lived Temp (with GCs between), prints
 *   "ready", waits until FLAGFILE exists (the test dumps by SIGQUIT meanwhile), then lets
 *   go of the Kept objects and ends: at exit none of them is live.
 */
public class SitesLive {
    static final class Kept { long v; Kept(long v) { this.v = v; } }
    static final class Half { int v; Half(int v) { this.v = v; } }
    static final class Dropped { int v; Dropped(int v) { this.v = v; } }
    static final class Temp { long a, b; Temp(long a) { this.a = a; } }

    static List<Kept> kept = new ArrayList<>();
    static final List<Half> half = new ArrayList<>();
    static long sink;

    static void keep() { for (int i = 0; i < 100_000; i++) kept.add(new Kept(i)); }

    static void halve() {
        for (int i = 0; i < 50_000; i++) {
            Half h = new Half(i);
            if ((i & 1) == 0) half.add(h);
        }
    }

    static void drop() {
        List<Dropped> d = new ArrayList<>();
        for (int i = 0; i < 200_000; i++) d.add(new Dropped(i));
        sink += d.size();
    }

    static void churn() {
        for (int round = 0; round < 6; round++) {
            for (int i = 0; i < 500_000; i++) sink += new Temp(i).a;
            System.gc();
        }
    }

    public static void main(String[] args) throws Exception {
        keep();
        halve();
        drop();
        churn();
        System.out.println("ready");
        File flag = new File(args[0]);
        while (!flag.exists()) Thread.sleep(20);
        kept = null;
        System.out.println("done " + half.size());
    }
}
