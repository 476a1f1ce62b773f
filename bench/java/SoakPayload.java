import java.util.function.LongUnaryOperator;

/** Loaded afresh by every OneClassLoader of the soak (public: each loader is its own
 * runtime package). A few methods and an allocation of its own. */
public class SoakPayload implements LongUnaryOperator {
    public SoakPayload() {}

    @Override
    public long applyAsLong(long x) {
        long[] a = new long[16];
        for (int i = 0; i < a.length; i++) a[i] = step(x + i);
        long s = 0;
        for (long v : a) s += v;
        return s;
    }

    private static long step(long x) {
        return x * 31 + (x >>> 7);
    }
}
