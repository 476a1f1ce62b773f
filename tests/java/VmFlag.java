import java.lang.management.ManagementFactory;
import com.sun.management.HotSpotDiagnosticMXBean;

/* Prints each HotSpot flag named on the command line as "NAME=VALUE", as the JVM holds it
 * once the agent has loaded (what the agent set shows here). */
public class VmFlag {
  public static void main(String[] args) {
    HotSpotDiagnosticMXBean d = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
    for (String name : args) System.out.println(name + "=" + d.getVMOption(name).getValue());
  }
}
