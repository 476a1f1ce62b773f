import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Allocation-heavy benchmark workload: two threads allocate a fixed number of small objects,
 * linked lists, int and byte arrays, strings and boxed lists. About one object in sixteen is
 * kept in a shared ring of 200,000 slots (so it survives young collections and is promoted),
 * and each thread keeps a bounded cache map. The checksum printed at the end does not depend
 * on scheduling.
 *
 *   java AllocWork [THREADS (default 2)] [ROUNDS_PER_THREAD (default 6000000)] [REPEATS (default 1)]
 *
 * With REPEATS, the whole run repeats that many times in one JVM and each repeat prints
 * "round N: MS ms" (bench/run.sh takes the cost after warm-up from the last ones).
 */
public final class AllocWork {
    static final class Node {
        final int key;
        final String label;
        final int[] data;
        Node next;

        Node(int key, String label, int[] data) {
            this.key = key;
            this.label = label;
            this.data = data;
        }
    }

    static final class Pair<A, B> {
        final A first;
        final B second;

        Pair(A first, B second) {
            this.first = first;
            this.second = second;
        }
    }

    private static final AtomicReferenceArray<Object> RING = new AtomicReferenceArray<>(200_000);

    private AllocWork() {
    }

    static Node chain(int seed, int length) {
        Node head = null;
        for (int i = 0; i < length; i++) {
            Node n = new Node(seed + i, (i & 7) == 0 ? "n" + seed : null, new int[4 + (seed + i) % 13]);
            n.data[0] = seed ^ i;
            n.next = head;
            head = n;
        }
        return head;
    }

    static long work(int thread, int rounds) {
        long check = 0;
        long x = 0x9E3779B97F4A7C15L * (thread + 1);
        Map<Integer, String> cache = new HashMap<>();
        for (int r = 0; r < rounds; r++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            int v = (int) (x >>> 33);
            Object kept;
            switch (r & 3) {
                case 0: {
                    Node head = chain(v, 6);
                    for (Node n = head; n != null; n = n.next) {
                        check += n.data.length;
                    }
                    kept = head;
                    break;
                }
                case 1: {
                    byte[] b = new byte[16 + (v & 255)];
                    b[b.length - 1] = (byte) v;
                    check += b.length;
                    kept = b;
                    break;
                }
                case 2: {
                    List<Integer> list = new ArrayList<>(8);
                    for (int i = 0; i < 8; i++) {
                        list.add(v + i * 1000);
                    }
                    check += list.get(3) & 0xff;
                    kept = new Pair<>(list, Integer.toHexString(v));
                    break;
                }
                default: {
                    String s = "k" + (v & 0xffff) + ":" + r;
                    String old = cache.put(v & 0xffff, s);
                    if (old != null) {
                        check += old.length();
                    }
                    if (cache.size() >= 50_000) {
                        cache.clear();
                    }
                    kept = s;
                    break;
                }
            }
            if ((r & 15) == 0) {
                RING.set((int) ((x >>> 20) % RING.length()), kept);
            }
        }
        return check;
    }

    /** One round: THREADS threads of ROUNDS allocation loops each; returns their checksum. */
    static long round(int threads, int rounds) throws InterruptedException {
        AtomicLong checksum = new AtomicLong();
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final int id = t;
            workers[t] = new Thread(() -> checksum.addAndGet(work(id, rounds)), "alloc-worker-" + t);
            workers[t].start();
        }
        for (Thread w : workers) {
            w.join();
        }
        return checksum.get();
    }

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 6_000_000;
        int repeats = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        long checksum = Rounds.repeat(repeats, () -> round(threads, rounds));
        int kept = 0;
        for (int i = 0; i < RING.length(); i++) {
            if (RING.get(i) != null) {
                kept++;
            }
        }
        System.out.println("AllocWork done: threads=" + threads + " rounds=" + rounds + " kept=" + kept
                + " checksum=" + checksum);
    }
}
