import java.util.concurrent.CountDownLatch;

/*
 * heap=dump test program: objects with known contents, held in known ways.
 *   HeapDumpKnown LIBPATH [wait]   loads the native helper (for a JNI global reference),
 *   builds the objects, prints "ready", then returns (dump at exit) or, with "wait", sleeps
 *   until killed (dumps by SIGQUIT).
 */
public class HeapDumpKnown {
    interface Konst { int K = 42; Object KO = new Object(); }
    interface Konst2 extends Konst { String NAME = "konst2-name"; }

    static class Base implements Konst2 {
        int baseInt = 0x0BA5E;
        Object baseRef = "base-ref-text";
    }

    static class Known extends Base implements Comparable<Known> {
        static int knownStatic = 77;
        boolean z = true;
        byte b = (byte) 0x7b;
        char c = 'Q';
        short s = (short) -12345;
        int i = 0x12345678;
        long j = 0x1122334455667788L;
        float f = 1.5f;
        double d = -2.25;
        String str = "hprof-known-text";
        Object self;
        public int compareTo(Known o) { return 0; }
    }

    static class Node {
        Node next;
        String name;
        Node(String n) { name = n; }
    }

    static class OnStack { int mark = 0x57AC; }
    static class ByJni { int mark = 0x4A4E; }
    static class ByMonitor { int mark = 0x4D4F; }   // a thread holds its monitor (and a local)

    static int sInt = 987654321;
    static long sLong = -5L;
    static boolean sBool = true;
    static double sDouble = 3.5;
    static char sChar = 'x';
    static String sStr = "static-text";
    static Known known;
    static Node cycle;
    static boolean[] za = {true, false, true};
    static byte[] ba = {1, -2, 3};
    static char[] ca = {'a', 'b'};
    static short[] sa = {-1, 300};
    static int[] ia = {1, 2, 3, -4};
    static long[] ja = {1L << 40, -1L};
    static float[] fa = {0.5f, -8f};
    static double[] da = {1e100, -0.25};
    static Object[] oa = {null, "in-array", null};
    static String[][] ssa = {{"x"}, null};
    static int[] empty = {};

    static native void holdGlobal(Object o);

    public static void main(String[] args) throws Exception {
        System.load(args[0]);
        boolean wait = args.length > 1 && args[1].equals("wait");
        known = new Known();
        known.self = known;
        Node a = new Node("cycle-a"), b = new Node("cycle-b");
        a.next = b;
        b.next = a;
        cycle = a;
        a = b = null;
        holdGlobal(new ByJni());
        CountDownLatch ready = new CountDownLatch(2);
        Thread stack = new Thread(() -> {
            OnStack local = new OnStack();
            ready.countDown();
            while (true) {
                try { Thread.sleep(100000); } catch (InterruptedException e) { break; }
            }
            System.out.println(local.mark);
        }, "stack-holder");
        stack.setDaemon(true);
        stack.start();
        Thread mon = new Thread(() -> {
            ByMonitor m = new ByMonitor();
            synchronized (m) {
                ready.countDown();
                while (true) {
                    try { Thread.sleep(100000); } catch (InterruptedException e) { break; }
                }
            }
        }, "monitor-holder");
        mon.setDaemon(true);
        mon.start();
        ready.await();
        System.out.println("ready");
        if (wait) Thread.sleep(600000);
    }
}
