import java.io.InputStream;

/**
 * A class loader that defines one class itself, from the bytes it was given (never asking
 * its parent for it), and takes every other class from the application's loader: each
 * instance is a fresh copy of that class. Used by tests/java/ClassChurn.java and
 * bench/java/Soak.java.
 */
public final class OneClassLoader extends ClassLoader {
    private final String name;
    private final byte[] bytes;

    public OneClassLoader(String name, byte[] bytes) {
        super(OneClassLoader.class.getClassLoader());
        this.name = name;
        this.bytes = bytes;
    }

    /** The class file of a class on the class path, by its binary name (no package). */
    public static byte[] bytesOf(String name) throws Exception {
        try (InputStream in = OneClassLoader.class.getResourceAsStream("/" + name + ".class")) {
            return in.readAllBytes();
        }
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
