// SPDX-License-Identifier: Apache-2.0
import java.io.InputStream;

// Deoptimises in a loop. Each round loads a fresh copy of DeoptLoop$Worker (a class loader
// of its own, the same bytes) and runs its hot method with one receiver class until the
// JIT has compiled it for that class alone, then with others: the compiled code's class
// check fails, the frame is deoptimised and the method compiled again. Most of the CPU is
// in Worker.work and the apply methods it calls.
public class DeoptLoop {
    public abstract static class Op { public abstract long apply(long x); }
    public static final class Op0 extends Op { public long apply(long x) { return x * 31 + 7; } }
    public static final class Op1 extends Op { public long apply(long x) { return x ^ (x >>> 7); } }
    public static final class Op2 extends Op { public long apply(long x) { return x + (x << 3); } }
    public static final class Op3 extends Op { public long apply(long x) { return x * 17 - 1; } }

    public static final class Worker {
        public static long work(Op op, long n) {
            long s = 1;
            for (long i = 0; i < n; i++) s = op.apply(s) + i;
            return s;
        }

        public static long run(Op[] ops) {
            long s = 0;
            for (int i = 0; i < 40; i++) s += work(ops[0], 20_000); // compiled for Op0 only
            for (Op op : ops) s += work(op, 200_000);                // the others: deoptimised
            return s;
        }
    }

    /** Loads Worker again, child-first: its own copy, compiled from scratch. */
    static final class Fresh extends ClassLoader {
        Fresh() { super(DeoptLoop.class.getClassLoader()); }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.equals(Worker.class.getName())) return super.loadClass(name, resolve);
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c != null) return c;
                try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                    byte[] b = in.readAllBytes();
                    return defineClass(name, b, 0, b.length);
                } catch (java.io.IOException e) {
                    throw new ClassNotFoundException(name, e);
                }
            }
        }
    }

    static volatile long sink;

    public static void main(String[] args) throws Exception {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 2000;
        Op[] ops = {new Op0(), new Op1(), new Op2(), new Op3()};
        long end = System.currentTimeMillis() + ms;
        int rounds = 0;
        while (System.currentTimeMillis() < end) {
            Class<?> w = new Fresh().loadClass(Worker.class.getName());
            sink += (long) w.getMethod("run", Op[].class).invoke(null, (Object) ops);
            rounds++;
        }
        System.out.println("rounds=" + rounds);
        System.out.println("done");
    }
}
