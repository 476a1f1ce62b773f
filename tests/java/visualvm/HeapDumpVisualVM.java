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
 *   HeapDumpVisualVM threads FILE  for every thread root: "THREAD <name> <method> <method> ..."
 *                                  (its stack as ThreadObjectGCRoot.getStackTrace gives it,
 *                                  top first), then for each Java frame root of it
 *                                  "LOCAL <name> <frame method> <class of the local>"
 *   HeapDumpVisualVM histo FILE    "<count> <class>" for every class with instances; empty
 *                                  int[] are counted apart as "int[](empty)" (HotSpot fills
 *                                  gaps in the heap with them); hidden classes are named
 *                                  "Outer$$Lambda.0x..." whichever separator the dump used
 */
public class HeapDumpVisualVM {
    /* The Threads view's data: each thread's frames, and its locals by frame. */
    static void threads(Heap heap) {
        for (GCRoot r : heap.getGCRoots()) {
            if (!(r instanceof ThreadObjectGCRoot)) continue;
            ThreadObjectGCRoot t = (ThreadObjectGCRoot) r;
            StringBuilder sb = new StringBuilder("THREAD ").append(threadName(t));
            StackTraceElement[] st = t.getStackTrace();
            if (st != null) for (StackTraceElement e : st) sb.append(' ').append(e.getMethodName());
            System.out.println(sb);
        }
        for (GCRoot r : heap.getGCRoots()) {
            if (!(r instanceof JavaFrameGCRoot)) continue;
            JavaFrameGCRoot f = (JavaFrameGCRoot) r;
            ThreadObjectGCRoot t = f.getThreadGCRoot();
            if (t == null) {
                System.out.println("LOCAL ? ? " + f.getInstance().getJavaClass().getName());
                continue;
            }
            StackTraceElement[] st = t.getStackTrace();
            int k = f.getFrameNumber();
            String m = st != null && k >= 0 && k < st.length ? st[k].getMethodName() : "?";
            System.out.println("LOCAL " + threadName(t) + " " + m + " " + f.getInstance().getJavaClass().getName());
        }
    }

    static String threadName(ThreadObjectGCRoot t) {
        Object name = t.getInstance().getValueOfField("name");
        if (name instanceof Instance) {
            Object v = ((Instance) name).getValueOfField("value");
            if (v instanceof PrimitiveArrayInstance) {
                StringBuilder sb = new StringBuilder();
                for (Object b : ((PrimitiveArrayInstance) v).getValues()) sb.append((char) Integer.parseInt((String) b));
                return sb.toString();
            }
        }
        return "?";
    }

    public static void main(String[] args) throws Exception {
        Heap heap = HeapFactory.createHeap(new File(args[1]));
        if (args[0].equals("threads")) {
            threads(heap);
            return;
        }
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
