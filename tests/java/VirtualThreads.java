import java.lang.reflect.Method;

/**
 * Starts a thread that is virtual where the JDK has them (21+) and a platform thread
 * before, for test programs that must compile and run on JDK 17 too.
 */
public final class VirtualThreads {
    private static final Method OF_VIRTUAL = find();

    private VirtualThreads() {
    }

    private static Method find() {
        try {
            return Thread.class.getMethod("ofVirtual");
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    /** Whether start() makes virtual threads on this JDK. */
    public static boolean available() {
        return OF_VIRTUAL != null;
    }

    /** A started thread running r: virtual when the JDK has them. */
    public static Thread start(Runnable r) throws Exception {
        if (OF_VIRTUAL == null) {
            Thread t = new Thread(r);
            t.start();
            return t;
        }
        Object builder = OF_VIRTUAL.invoke(null);
        return (Thread) Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class).invoke(builder, r);
    }
}
