import java.util.function.LongUnaryOperator;

/**
 * Class-loader churn (tests/integration/class_churn.sh): ROUNDS rounds, each of COPIES
 * fresh loaders (OneClassLoader) that define ChurnPayload from its bytes, make one
 * instance of it and call applyAsLong once (step 16 times). After each round the loaders are dropped, a GC
 * unloads their classes, and the program pauses PAUSE_MS so the agent's class sweeper
 * sees them gone. Prints "copies N" at the end.
 *
 *   java ClassChurn ROUNDS COPIES PAUSE_MS
 */
public class ClassChurn {
    static long sink;

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]), copies = Integer.parseInt(args[1]);
        long pause = Long.parseLong(args[2]);
        byte[] bytes = OneClassLoader.bytesOf("ChurnPayload");
        int made = 0;
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < copies; i++, made++) {
                ClassLoader loader = new OneClassLoader("ChurnPayload", bytes);
                Class<?> c = loader.loadClass("ChurnPayload");
                LongUnaryOperator op = (LongUnaryOperator) c.getDeclaredConstructor().newInstance();
                sink += op.applyAsLong(i);
            }
            System.gc();
            Thread.sleep(pause);
        }
        System.out.println("copies " + made + " sink " + (sink & 1));
    }
}
