import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * CPU-bound benchmark workload: a fixed number of work units (recursion, virtual calls through
 * an interface, sorting, string hashing), each started below a stack of a dozen frames, shared
 * by several threads through a counter. The total work does not depend on the thread count or
 * on scheduling, and the checksum printed at the end is always the same.
 *
 *   java CpuWork [THREADS (default 4)] [UNITS (default 8000)] [ROUNDS (default 1)]
 *
 * With ROUNDS, the same work runs that many times in one JVM and each round prints
 * "round N: MS ms", so that bench/run.sh can tell the cost after warm-up from the start-up one.
 */
public final class CpuWork {
    interface Shape {
        double area();

        double perimeter();
    }

    record Circle(double r) implements Shape {
        public double area() {
            return Math.PI * r * r;
        }

        public double perimeter() {
            return 2 * Math.PI * r;
        }
    }

    record Rect(double w, double h) implements Shape {
        public double area() {
            return w * h;
        }

        public double perimeter() {
            return 2 * (w + h);
        }
    }

    record Triangle(double a, double b, double c) implements Shape {
        public double area() {
            double s = (a + b + c) / 2;
            return Math.sqrt(Math.max(0, s * (s - a) * (s - b) * (s - c)));
        }

        public double perimeter() {
            return a + b + c;
        }
    }

    private CpuWork() {
    }

    static long fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static long shapes(int seed) {
        Shape[] all = new Shape[512];
        long x = seed;
        for (int i = 0; i < all.length; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            double v = 1 + ((x >>> 40) & 1023) / 64.0;
            all[i] = switch (i % 3) {
                case 0 -> new Circle(v);
                case 1 -> new Rect(v, v / 2 + 1);
                default -> new Triangle(v + 2, v + 3, v + 4);
            };
        }
        double sum = 0;
        for (int round = 0; round < 120; round++) {
            for (Shape s : all) {
                sum += s.area() / (1 + s.perimeter()) + round * 1e-9;
            }
        }
        return (long) sum;
    }

    static long sorting(int seed) {
        int[] a = new int[4096];
        long x = seed;
        long check = 0;
        for (int round = 0; round < 12; round++) {
            for (int i = 0; i < a.length; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                a[i] = (int) (x >>> 33);
            }
            Arrays.sort(a);
            check += a[a.length / 2] ^ a[round];
        }
        return check;
    }

    static long hashing(int seed) {
        StringBuilder sb = new StringBuilder();
        long h = 0;
        for (int i = 0; i < 6000; i++) {
            sb.setLength(0);
            sb.append("unit-").append(seed).append('/').append(i).append(':').append(i * 31 % 977);
            String s = sb.toString();
            h = h * 31 + s.hashCode() + s.indexOf(':');
        }
        return h;
    }

    static long kernel(int unit) {
        switch (unit % 4) {
            case 0:
                return fib(24);
            case 1:
                return shapes(unit);
            case 2:
                return sorting(unit);
            default:
                return hashing(unit);
        }
    }

    /** Puts DEPTH frames between the thread's run method and the kernel. */
    static long descend(int depth, int unit) {
        if (depth == 0) {
            return kernel(unit);
        }
        return descend(depth - 1, unit) + depth;
    }

    /** One round: UNITS work units shared by THREADS threads; returns their checksum. */
    static long round(int threads, int units) throws InterruptedException {
        AtomicInteger next = new AtomicInteger();
        AtomicLong checksum = new AtomicLong();
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            workers[t] = new Thread(() -> {
                long local = 0;
                for (int u; (u = next.getAndIncrement()) < units; ) {
                    local += descend(12, u);
                }
                checksum.addAndGet(local);
            }, "cpu-worker-" + t);
            workers[t].start();
        }
        for (Thread w : workers) {
            w.join();
        }
        return checksum.get();
    }

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        int units = args.length > 1 ? Integer.parseInt(args[1]) : 8000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        long checksum = Rounds.repeat(rounds, () -> round(threads, units));
        System.out.println("CpuWork done: units=" + units + " threads=" + threads + " checksum=" + checksum);
    }
}
