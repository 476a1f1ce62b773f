import java.io.File;
import java.util.*;
import org.graalvm.visualvm.lib.jfluid.heap.*;

/*
 * The reference answers of `hprof analyze`: VisualVM's heap library (Debian package
 * visualvm) on a binary heap dump. Compiled by tests/integration/analyze.sh against
 * org-graalvm-visualvm-lib-jfluid-heap.jar.
 *   RetainedVisualVM all FILE      "0x<id> <shallow> <retained>" for every instance
 *                                  (Instance.getSize, Instance.getRetainedSize), sorted
 *   RetainedVisualVM top FILE N    "0x<id> <retained>" of getBiggestObjectsByRetainedSize(N)
 *   RetainedVisualVM root FILE ID  the nearest GC root path of an object: "0x<id> <class> <retained>"
 *   RetainedVisualVM classes FILE  "<name> <instances> <shallow> <retained>" per class
 *                                  (JavaClass.getRetainedSizeByClass)
 */
public class RetainedVisualVM {
    public static void main(String[] a) throws Exception {
        Heap heap = HeapFactory.createHeap(new File(a[1]));
        switch (a[0]) {
        case "all": {
            List<String> out = new ArrayList<>();
            Iterator<Instance> it = heap.getAllInstancesIterator();
            while (it.hasNext()) {
                Instance i = it.next();
                out.add(String.format("0x%x %d %d", i.getInstanceId(), i.getSize(), i.getRetainedSize()));
            }
            Collections.sort(out);
            for (String s : out) System.out.println(s);
            break;
        }
        case "top":
            for (Instance i : heap.getBiggestObjectsByRetainedSize(Integer.parseInt(a[2])))
                System.out.printf("0x%x %d%n", i.getInstanceId(), i.getRetainedSize());
            break;
        case "classes":
            for (JavaClass c : heap.getAllClasses())
                System.out.printf("%s %d %d %d%n", c.getName(), c.getInstancesCount(), c.getAllInstancesSize(),
                                  c.getRetainedSizeByClass());
            break;
        case "root": { /* the path VisualVM shows from the nearest GC root to an object */
            Instance i = heap.getInstanceByID(Long.decode(a[2]));
            for (int n = 0; i != null && n < 1000; n++, i = i.getNearestGCRootPointer())
                System.out.printf("0x%x %s %d %s%n", i.getInstanceId(), i.getJavaClass().getName(), i.getRetainedSize(),
                                  i.isGCRoot() ? "root" : "");
            break;
        }
        case "refs": { /* an object's references, each with its size and nearest-root pointer */
            Instance i = heap.getInstanceByID(Long.decode(a[2]));
            List<Instance> targets = new ArrayList<>();
            List<String> names = new ArrayList<>();
            if (i instanceof ObjectArrayInstance)
                for (Instance t : ((ObjectArrayInstance) i).getValues()) { targets.add(t); names.add("[]"); }
            for (FieldValue v : i.getFieldValues())
                if (v instanceof ObjectFieldValue) {
                    targets.add(((ObjectFieldValue) v).getInstance());
                    names.add(v.getField().getName());
                }
            for (int k = 0; k < targets.size(); k++) {
                Instance t = targets.get(k);
                if (t == null) continue;
                Instance p = t.getNearestGCRootPointer();
                System.out.printf("%s 0x%x %s %d %d near=0x%x%n", names.get(k), t.getInstanceId(),
                                  t.getJavaClass().getName(), t.getSize(), t.getRetainedSize(),
                                  p == null ? 0 : p.getInstanceId());
            }
            break;
        }
        default: throw new IllegalArgumentException(a[0]);
        }
    }
}
