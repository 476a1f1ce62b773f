import java.util.function.LongUnaryOperator;

/** Defined by a loader of its own in tests/java/SitesDeepUnload.java, run interpreted
 * (the test excludes it from the JIT), then unloaded; DeepPayloadA and DeepPayloadB are
 * the same code under two names of one length, so that the second may be given the
 * memory of the first. */
public class DeepPayloadB implements LongUnaryOperator {
    public DeepPayloadB() {}

    @Override
    public long applyAsLong(long n) {
        return down((int) n, 6);
    }

    private long down(int n, int k) {
        return k == 0 ? SitesDeepUnload.make(n) : down(n, k - 1) + 1;
    }
}
