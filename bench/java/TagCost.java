/*
 * What holding every new object costs the JVM, per object: `java -agentpath:...libtagcost.so
 * TagCost MODE N` allocates N int[2] (one in 16 kept in a ring of 100,000) and hands each
 * to the agent: MODE 0 nothing, 1 a JVMTI SetTag, 2 a JNI weak global reference (swept of
 * collected objects as the log doubles), 3 a JVMTI GetTag, 4 JNI GetObjectClass.
 */
public class TagCost {
    static native void hold(Object o, int mode);

    static final Object[] keep = new Object[100_000];

    public static void main(String[] args) {
        int mode = Integer.parseInt(args[0]);
        int n = Integer.parseInt(args[1]);
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            Object o = new int[2];
            hold(o, mode);
            if ((i & 15) == 0) keep[(i >> 4) % keep.length] = o;
        }
        long t1 = System.nanoTime();
        System.gc();
        long t2 = System.nanoTime();
        System.out.printf("mode %d: %.1f ns per object, then a full GC %.1f ms%n", mode, (t1 - t0) / (double) n,
                          (t2 - t1) / 1e6);
    }
}
