// SPDX-License-Identifier: Apache-2.0
// CPU in native code, for cpu=samples' native frames:
//   NativeWork jni LIB MS   after 300 ms of Java work (the library is loaded well after
//                           the agent read the process's code), the thread "spinner"
//                           calls the native chain spin -> outer -> middle -> inner
//                           (tests/java/native/native_chain_jni.c) from caller() for MS ms
//   NativeWork zip MS       java.util.zip's Deflater and Inflater in a loop for MS ms
//   NativeWork syscall MS   reads /dev/zero through a FileChannel into a direct buffer
//                           of 1 MiB in a loop for MS ms, from reader(): most of its CPU
//                           in the kernel, clearing the buffer in the read system call
//                           (kernel=y)
public class NativeWork {
    static native long spin(long n);

    static long caller(long ms) {
        long end = System.currentTimeMillis() + ms, sum = 0;
        while (System.currentTimeMillis() < end) sum += spin(20_000_000L);
        return sum;
    }

    static long javaWork(long ms) {
        long end = System.currentTimeMillis() + ms, x = 0;
        while (System.currentTimeMillis() < end) for (int i = 0; i < 100_000; i++) x += i * 31L ^ x;
        return x;
    }

    static long zip(long ms) throws Exception {
        byte[] in = new byte[1 << 20];
        java.util.Random r = new java.util.Random(1);
        for (int i = 0; i < in.length; i++) in[i] = (byte) ('a' + r.nextInt(6));
        byte[] packed = new byte[in.length + 1024], out = new byte[in.length];
        long end = System.currentTimeMillis() + ms, total = 0;
        while (System.currentTimeMillis() < end) {
            java.util.zip.Deflater d = new java.util.zip.Deflater();
            d.setInput(in);
            d.finish();
            int n = d.deflate(packed);
            d.end();
            java.util.zip.Inflater f = new java.util.zip.Inflater();
            f.setInput(packed, 0, n);
            total += f.inflate(out);
            f.end();
        }
        return total;
    }

    static long reader(long ms) throws Exception {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocateDirect(1 << 20);
        long end = System.currentTimeMillis() + ms, n = 0;
        try (java.nio.channels.FileChannel in = java.nio.channels.FileChannel.open(java.nio.file.Path.of("/dev/zero"))) {
            while (System.currentTimeMillis() < end) {
                b.clear();
                n += in.read(b);
            }
        }
        return n;
    }

    public static void main(String[] args) throws Exception {
        long ms = Long.parseLong(args[args.length - 1]);
        if (args[0].equals("zip")) {
            System.out.println("zip " + zip(ms));
        } else if (args[0].equals("syscall")) {
            System.out.println("syscall " + (reader(ms) > 0));
        } else {
            System.out.println("java " + javaWork(300));
            System.load(args[1]);
            long[] sum = new long[1];
            Thread t = new Thread(() -> sum[0] = caller(ms), "spinner");
            t.start();
            t.join();
            System.out.println("jni " + sum[0]);
        }
        System.out.println("done");
    }
}
