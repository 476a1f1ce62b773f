import java.lang.management.*;
import java.util.*;
import com.sun.management.HotSpotDiagnosticMXBean;

/* timeline=: what the JVM itself reports, for the run header and the GC count to be
 * compared with. Allocates enough for some collections, forces four, then prints. */
public class TimelineInfo {
  public static void main(String[] args) throws Exception {
    List<byte[]> keep = new ArrayList<>();
    for (int r = 0; r < 4; r++) {
      for (int i = 0; i < 20000; i++) { byte[] b = new byte[1000]; if (i % 10 == 0) keep.add(b); }
      System.gc();
    }
    HotSpotDiagnosticMXBean d = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
    String gc = "";
    for (String[] f : new String[][] {{"UseSerialGC", "Serial"}, {"UseParallelGC", "Parallel"}, {"UseG1GC", "G1"},
                                       {"UseZGC", "Z"}, {"UseShenandoahGC", "Shenandoah"}}) {
      try { if (d.getVMOption(f[0]).getValue().equals("true")) gc = f[1]; } catch (IllegalArgumentException e) { }
    }
    System.out.println("RUN command: " + System.getProperty("sun.java.command"));
    System.out.println("RUN java.class.path: " + System.getProperty("java.class.path"));
    System.out.println("RUN os.name: " + System.getProperty("os.name"));
    System.out.println("RUN os.arch: " + System.getProperty("os.arch"));
    System.out.println("RUN os.version: " + System.getProperty("os.version"));
    System.out.println("RUN heap.initial: " + d.getVMOption("InitialHeapSize").getValue());
    System.out.println("RUN heap.max: " + d.getVMOption("MaxHeapSize").getValue());
    System.out.println("RUN java.vm.name: " + System.getProperty("java.vm.name"));
    System.out.println("RUN java.vm.version: " + System.getProperty("java.vm.version"));
    System.out.println("RUN gc: " + gc);
    System.out.println("RUN pid: " + ProcessHandle.current().pid());
    System.out.println("RUN start: " + ManagementFactory.getRuntimeMXBean().getStartTime());
    // Every collection the JVM counts once: the "... Cycles" beans of ZGC and Shenandoah
    // count whole concurrent cycles, whose pauses the "... Pauses" beans count.
    long n = 0;
    StringBuilder all = new StringBuilder();
    for (GarbageCollectorMXBean g : ManagementFactory.getGarbageCollectorMXBeans()) {
      all.append(' ').append(g.getName().replace(' ', '_')).append('=').append(g.getCollectionCount());
      if (!g.getName().endsWith("Cycles")) n += g.getCollectionCount();
    }
    System.out.println("gcs " + n + all);
  }
}
