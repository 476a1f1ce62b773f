import java.util.function.LongUnaryOperator;

/** Defined by a loader of its own in tests/java/SitesDeepUnload.java, run interpreted
 * (the test excludes it from the JIT), then unloaded; then defined again as DeepPayloadB
 * (its bytes with the name replaced: the same code under a name of the same length, so
 * that it may be given the memory of the first). */
public class DeepPayloadA implements LongUnaryOperator {
    public DeepPayloadA() {}

    @Override
    public long applyAsLong(long n) {
        return down((int) n, 6);
    }

    private long down(int n, int k) {
        return k == 0 ? SitesDeepUnload.make(n) : down(n, k - 1) + 1;
    }
}
