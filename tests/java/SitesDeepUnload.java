import java.util.ArrayList;
import java.util.List;
import java.util.function.LongUnaryOperator;

/**
 * Deep heap=sites chains through interpreted frames of a class that is then unloaded
 * (tests/integration/sites_deep.sh): DeepPayloadA, defined by a loader of its own, calls
 * make() (compiled) through seven interpreted frames of its own, ROUNDS times, making
 * PER Nodes each time; then its loader is dropped and the class unloaded, and
 * DeepPayloadB (the same code under another name) does the same. A chain learnt for A's
 * frames must not name B's allocations, even where B's methods took A's memory. Then
 * DeepPayloadC does the same while 40 more classes are loaded and kept: nothing is
 * unloaded, so its chains need not be learnt again.
 *
 *   java -XX:CompileCommand=quiet -XX:CompileCommand=exclude,DeepPayload*.* SitesDeepUnload
 */
public class SitesDeepUnload {
    static final int ROUNDS = 2000, PER = 100;
    static long sink;

    static final class Node {
        final long v;

        Node(long v) {
            this.v = v;
        }
    }

    static long leaf(int i) {
        return new Node(i).v;
    }

    public static long make(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) s += leaf(i);
        return s;
    }

    /* DeepPayloadA's class file, named `name` (of the same length) everywhere. */
    static byte[] payload(String name) throws Exception {
        byte[] b = OneClassLoader.bytesOf("DeepPayloadA");
        byte[] from = "DeepPayloadA".getBytes("US-ASCII"), to = name.getBytes("US-ASCII");
        for (int i = 0; i + from.length <= b.length; i++) {
            int k = 0;
            while (k < from.length && b[i + k] == from[k]) k++;
            if (k == from.length) System.arraycopy(to, 0, b, i, to.length);
        }
        return b;
    }

    static void phase(String name) throws Exception {
        ClassLoader loader = new OneClassLoader(name, payload(name));
        LongUnaryOperator op =
            (LongUnaryOperator) loader.loadClass(name).getDeclaredConstructor().newInstance();
        for (int r = 0; r < ROUNDS; r++) sink += op.applyAsLong(PER);
    }

    /* The same as phase(), the class kept, and every 50 rounds a class loaded and
     * prepared beside it (kept too: nothing is unloaded). */
    static void phaseKeep(String name) throws Exception {
        ClassLoader loader = new OneClassLoader(name, payload(name));
        LongUnaryOperator op =
            (LongUnaryOperator) loader.loadClass(name).getDeclaredConstructor().newInstance();
        byte[] other = OneClassLoader.bytesOf("ChurnPayload");
        List<Object> kept = new ArrayList<>();
        for (int r = 0; r < ROUNDS; r++) {
            if (r % 50 == 0)
                kept.add(new OneClassLoader("ChurnPayload", other).loadClass("ChurnPayload")
                             .getDeclaredConstructor().newInstance());
            sink += op.applyAsLong(PER);
        }
        sink += kept.size();
    }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 20000; i++) sink += make(10); // make() and leaf() compiled first
        phase("DeepPayloadA");
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        phase("DeepPayloadB");
        phaseKeep("DeepPayloadC");
        System.out.println("done " + (sink & 1));
    }
}
