import java.util.function.LongUnaryOperator;

/**
 * Class-loader churn while heap dumps are taken (tests/integration/class_churn.sh): a
 * thread defines ChurnPayload afresh in a new loader again and again for SECONDS and
 * keeps the last KEEP instances alive in an array, so that any dump finds many copies
 * of one name, some loaded while the agent was preparing that dump. Prints "ready" once
 * it runs and "copies N" at the end.
 *
 *   java ChurnKeep SECONDS KEEP
 */
public class ChurnKeep {
    public static void main(String[] args) throws Exception {
        long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L;
        Object[] kept = new Object[Integer.parseInt(args[1])];
        byte[] bytes = OneClassLoader.bytesOf("ChurnPayload");
        long made = 0, sink = 0;
        System.out.println("ready");
        while (System.nanoTime() < end) {
            Class<?> c = new OneClassLoader("ChurnPayload", bytes).loadClass("ChurnPayload");
            LongUnaryOperator op = (LongUnaryOperator) c.getDeclaredConstructor().newInstance();
            sink += op.applyAsLong(made);
            kept[(int) (made++ % kept.length)] = op;
        }
        System.out.println("copies " + made + " sink " + (sink & 1));
    }
}
