import java.util.function.LongUnaryOperator;

/** Defined afresh by every loader of tests/java/ClassChurn.java: three methods and an
 * allocation (its own instance, made by the caller). */
public class ChurnPayload implements LongUnaryOperator {
    public ChurnPayload() {}

    @Override
    public long applyAsLong(long x) {
        long s = 0;
        for (int i = 0; i < 16; i++) s += step(x + i);
        return s;
    }

    private static long step(long x) {
        return x * 31 + (x >>> 7);
    }
}
