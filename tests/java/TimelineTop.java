import java.util.*;

/* top=N: more than N entries in every ranked section: CPU in five methods, allocations at
 * five sites, and contention for one monitor at four call sites (four threads). */
public class TimelineTop {
  static final Object LOCK = new Object();
  static volatile long sink;
  static List<Object> kept = new ArrayList<>();

  static long spin(int n) { long x = 0; for (int i = 0; i < n; i++) x += i * 31L ^ (x >>> 3); return x; }
  static void m1() { sink += spin(3_000_000); kept.add(new int[10]); }
  static void m2() { sink += spin(3_000_000); kept.add(new long[10]); }
  static void m3() { sink += spin(3_000_000); kept.add(new byte[10]); }
  static void m4() { sink += spin(3_000_000); kept.add(new char[10]); }
  static void m5() { sink += spin(3_000_000); kept.add(new short[10]); }

  static void hold() { synchronized (LOCK) { sink += spin(2_000_000); } }
  static void c1() { hold(); }
  static void c2() { hold(); }
  static void c3() { hold(); }
  static void c4() { hold(); }

  public static void main(String[] args) throws Exception {
    for (int r = 0; r < 40; r++) { m1(); m2(); m3(); m4(); m5(); if (r % 10 == 0) System.gc(); }
    Runnable[] rs = {TimelineTop::c1, TimelineTop::c2, TimelineTop::c3, TimelineTop::c4};
    List<Thread> ts = new ArrayList<>();
    java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
    for (Runnable r : rs) ts.add(new Thread(() -> {
      try { go.await(); } catch (InterruptedException e) { return; }
      for (int i = 0; i < 30; i++) r.run();
    }));
    for (Thread t : ts) t.start();
    synchronized (LOCK) { go.countDown(); Thread.sleep(200); }    /* all four block on LOCK first */
    for (Thread t : ts) t.join();
    System.out.println("done " + sink);
  }
}
