import java.io.File;
import java.util.*;
import org.graalvm.visualvm.lib.jfluid.heap.*;

/*
 * Opens binary heap dumps with VisualVM's heap library (Debian package visualvm), the
 * reader many tools share. Compiled by tests/integration/heap_dump_visualvm.sh against
 * org-graalvm-visualvm-lib-jfluid-heap.jar.
 *   HeapDumpVisualVM check FILE    loads it; prints "CLASSES n", "INSTANCES n",
 *                                  "ROOTS <kind>=n ...", "UNRESOLVED n" (object fields and
 *                                  statics whose ID names no object in the dump)
 *   HeapDumpVisualVM histo FILE    "<count> <class>" for every class with instances; empty
 *                                  int[] are counted apart as "int[](empty)" (HotSpot fills
 *                                  gaps in the heap with them); hidden classes are named
 *                                  "Outer$$Lambda.0x..." whichever separator the dump used
 */
public class HeapDumpVisualVM {
    public static void main(String[] args) throws Exception {
        Heap heap = HeapFactory.createHeap(new File(args[1]));
        if (args[0].equals("histo")) {
            for (JavaClass c : heap.getAllClasses()) {
                int n = c.getInstancesCount();
                if (n == 0) continue;
                String name = c.getName().replace("+0x", ".0x");
                if (name.equals("int[]")) {
                    int empty = 0;
                    for (Instance i : c.getInstances()) if (((PrimitiveArrayInstance) i).getLength() == 0) empty++;
                    System.out.println(empty + " int[](empty)");
                    n -= empty;
                }
                System.out.println(n + " " + name);
            }
            return;
        }
        long instances = 0, unresolved = 0;
        String example = null;
        for (JavaClass c : heap.getAllClasses()) {
            for (FieldValue v : c.getStaticFieldValues())
                if (v instanceof ObjectFieldValue && !"0".equals(v.getValue()) && ((ObjectFieldValue) v).getInstance() == null) {
                    unresolved++;
                    if (example == null) example = c.getName() + "." + v.getField().getName() + "=" + v.getValue();
                }
            for (Instance i : c.getInstances()) {
                instances++;
                for (FieldValue v : i.getFieldValues())
                    if (v instanceof ObjectFieldValue && !"0".equals(v.getValue()) && ((ObjectFieldValue) v).getInstance() == null) {
                        unresolved++;
                        if (example == null) example = c.getName() + "#" + i.getInstanceId() + "." + v.getField().getName() + "=" + v.getValue();
                    }
            }
        }
        Map<String, Integer> roots = new TreeMap<>();
        for (GCRoot r : heap.getGCRoots()) {
            roots.merge(r.getKind(), 1, Integer::sum);
            if (r.getInstance() == null) {
                unresolved++;
                if (example == null) example = "root " + r.getKind();
            }
        }
        System.out.println("CLASSES " + heap.getAllClasses().size());
        System.out.println("INSTANCES " + instances);
        StringBuilder sb = new StringBuilder("ROOTS");
        for (Map.Entry<String, Integer> e : roots.entrySet()) sb.append(' ').append(e.getKey().replace(' ', '_')).append('=').append(e.getValue());
        System.out.println(sb);
        JavaClass known = heap.getJavaClassByName("HeapDumpKnown$Known");
        if (known != null && known.getInstancesCount() == 1) {
            Instance k = known.getInstances().get(0);
            System.out.println("KNOWN i=" + k.getValueOfField("i") + " j=" + k.getValueOfField("j") + " d=" + k.getValueOfField("d")
                + " c=" + k.getValueOfField("c") + " self=" + (((Instance) k.getValueOfField("self")).getInstanceId() == k.getInstanceId()));
        }
        System.out.println("UNRESOLVED " + unresolved + (example != null ? " (" + example + ")" : ""));
    }
}
