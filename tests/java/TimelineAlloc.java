import java.nio.file.*;
import java.util.*;

/* timeline=gc with heap=sites: a known number of objects at known sites between forced
 * collections. `counts`: 1000 Known each of rounds 1-3, all kept, then dropped before
 * round 4's GC. `leak`: Leak objects pile up round after round, Churn objects (far more
 * of them) are dropped at once. After each GC it waits until the profile (args[1], text; - for none)
 * has that GC's record, so that every interval ends at its own GC (when the agent's
 * thread falls behind, GCs share one record). Prints "done" at the end. */
public class TimelineAlloc {
  static class Known { int v; }
  static class Leak { long a, b, c; }
  static class Churn { long a, b, c, d; }
  static ArrayList<Object> kept = new ArrayList<>();
  static long sink;

  static void known() { for (int i = 0; i < 1000; i++) kept.add(new Known()); }
  static void leak(int n) { for (int i = 0; i < n; i++) kept.add(new Leak()); }
  static void churn(int n) { for (int i = 0; i < n; i++) { Churn c = new Churn(); c.a = i; sink += c.a; } }

  static int gcs;
  static void gc(String profile) throws Exception {
    System.gc();
    String want = "GC " + ++gcs + " (";
    if (profile.equals("-")) return;    /* a binary profile: no waiting */
    for (int i = 0; i < 6000; i++) {
      for (String line : Files.readAllLines(Paths.get(profile))) if (line.startsWith(want)) return;
      Thread.sleep(10);
    }
  }

  public static void main(String[] args) throws Exception {
    kept.ensureCapacity(100000);    /* no growth of the list between the rounds */
    if (args[0].equals("counts")) {
      for (int r = 0; r < 3; r++) { known(); gc(args[1]); }
      kept.clear();
      gc(args[1]);
    } else {
      for (int r = 0; r < 8; r++) { leak(2000); churn(50000); gc(args[1]); }
    }
    System.out.println("done " + sink);
  }
}
