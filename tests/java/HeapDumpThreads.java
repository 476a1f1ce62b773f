import java.util.concurrent.CountDownLatch;

/*
 * heap=dump test program: threads with known stacks and a known local.
 *   HeapDumpThreads return|exit|wait
 * starts "stack-holder", a daemon thread in levelA -> levelB -> levelC (asleep there)
 * that holds a Marker in a local of levelB, prints "ready", then:
 *   return  main returns (the dump at exit runs on DestroyJavaVM)
 *   exit    main calls System.exit(0) (the dump at exit runs on main itself)
 *   wait    sleeps until killed (dumps by SIGQUIT)
 * It touches no double formatting and no jar manifest, so that the classes the
 * class-data-sharing archive holds objects of (jdk.internal.math.FDBigInteger,
 * java.util.jar.Attributes$Name) stay loaded and not linked.
 */
public class HeapDumpThreads {
    static class Marker { int mark = 0x4D41524B; }

    static final CountDownLatch ready = new CountDownLatch(1);

    static void levelC() {
        ready.countDown();
        while (true) {
            try { Thread.sleep(100000); } catch (InterruptedException e) { return; }
        }
    }

    static int levelB() {
        Marker local = new Marker();
        levelC();
        return local.mark;
    }

    static int levelA() { return levelB() + 1; }

    public static void main(String[] args) throws Exception {
        Thread t = new Thread(HeapDumpThreads::levelA, "stack-holder");
        t.setDaemon(true);
        t.start();
        ready.await();
        System.out.println("ready");
        if (args[0].equals("exit")) System.exit(0);
        if (args[0].equals("wait")) Thread.sleep(600000);
    }
}
