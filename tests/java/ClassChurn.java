import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.util.function.LongUnaryOperator;

/**
 * Class-loader churn (tests/integration/class_churn.sh): ROUNDS rounds, each of COPIES
 * fresh class loaders that define ChurnPayload from its bytes, make one instance of it and
 * call applyAsLong once (step 16 times). After each round the loaders are dropped, a GC
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
        byte[] bytes = classBytes("ChurnPayload");
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

    static byte[] classBytes(String name) throws Exception {
        try (InputStream in = ClassChurn.class.getResourceAsStream("/" + name + ".class")) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            in.transferTo(out);
            return out.toByteArray();
        }
    }

    /** Defines one class itself from its bytes; everything else comes from its parent. */
    static final class OneClassLoader extends ClassLoader {
        private final String name;
        private final byte[] bytes;

        OneClassLoader(String name, byte[] bytes) {
            super(ClassChurn.class.getClassLoader());
            this.name = name;
            this.bytes = bytes;
        }

        @Override
        protected Class<?> loadClass(String n, boolean resolve) throws ClassNotFoundException {
            if (!n.equals(name)) return super.loadClass(n, resolve);
            synchronized (getClassLoadingLock(n)) {
                Class<?> c = findLoadedClass(n);
                return c != null ? c : defineClass(n, bytes, 0, bytes.length);
            }
        }
    }
}
