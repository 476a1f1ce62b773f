import java.io.File;
import java.nio.file.Files;

/*
 * A long-running program whose phases a test sets (tests/integration/sessions.sh,
 * rolling.sh), so that what each session or window must hold is known:
 *   Phases DIR SECONDS [ALLOC]
 * runs while DIR/run exists (at most SECONDS), spinning in hot1() or hot2() as DIR/hot
 * says ("1" or "2", hot1 when absent). Each DIR/cmd.N (N = 1, 2, ... in turn) holds
 * "alloc K COUNT": it allocates exactly COUNT objects of class Phases$MarkK (K 1..3),
 * then writes DIR/ack.N. With ALLOC = "K:COUNT:MS" it also, from the start, allocates
 * COUNT Phases$MarkK in batches spread over MS milliseconds, then prints "allocated"
 * and ends a second later (the rolling windows' exact sums).
 */
public class Phases {
    static volatile long sink;
    static volatile Object last;

    static final class Mark1 { long a; }
    static final class Mark2 { long a; }
    static final class Mark3 { long a; }

    static long hot1(long n) {
        long s = 0;
        for (long i = 0; i < n; i++) s += (i * 31) ^ (s >>> 3);
        return s;
    }

    static long hot2(long n) {
        long s = 1;
        for (long i = 0; i < n; i++) s += (i * 17) ^ (s >>> 5);
        return s;
    }

    static void alloc(int kind, long count) {
        for (long i = 0; i < count; i++) {
            if (kind == 1) last = new Mark1();
            else if (kind == 2) last = new Mark2();
            else last = new Mark3();
        }
    }

    public static void main(String[] args) throws Exception {
        File dir = new File(args[0]);
        File run = new File(dir, "run"), hot = new File(dir, "hot");
        long end = System.currentTimeMillis() + 1000L * Long.parseLong(args[1]);
        int kind = 0;
        long left = 0, start = System.currentTimeMillis(), spread = 1;
        if (args.length > 2) {
            String[] a = args[2].split(":");
            kind = Integer.parseInt(a[0]);
            left = Long.parseLong(a[1]);
            spread = Math.max(1, Long.parseLong(a[2]));
        }
        System.out.println("ready");
        System.out.flush();
        int next = 1;
        long total = left, stop = Long.MAX_VALUE;
        while (run.exists() && System.currentTimeMillis() < Math.min(end, stop)) {
            boolean two = hot.exists() && new String(Files.readAllBytes(hot.toPath())).trim().equals("2");
            sink += two ? hot2(2_000_000) : hot1(2_000_000);
            if (left > 0) {
                /* In step with the clock: about total * elapsed / spread allocated so far. */
                long due = Math.min(total, total * (System.currentTimeMillis() - start) / spread);
                long n = Math.min(left, Math.max(0, due - (total - left)));
                if (n > 0) {
                    alloc(kind, n);
                    left -= n;
                    if (left == 0) {
                        System.out.println("allocated");
                        System.out.flush();
                        stop = System.currentTimeMillis() + 1000;
                    }
                }
            }
            File cmd = new File(dir, "cmd." + next);
            if (cmd.exists()) {
                String[] w = new String(Files.readAllBytes(cmd.toPath())).trim().split(" ");
                if (w.length == 3 && w[0].equals("alloc")) alloc(Integer.parseInt(w[1]), Long.parseLong(w[2]));
                Files.write(new File(dir, "ack." + next).toPath(), "ok\n".getBytes());
                next++;
            }
        }
        System.out.println("done");
    }
}
