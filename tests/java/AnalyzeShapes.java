import java.lang.ref.SoftReference;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

/*
 * Object graphs of known shapes for `hprof analyze` (tests/integration/analyze.sh): each
 * hangs from a static field of this class or from a thread, so that every object's
 * retained size can be compared with VisualVM's heap library's. Prints "ready" and waits
 * for a heap dump (jcmd GC.heap_dump) when its last argument is "wait"; with "leak" first,
 * a linked list grows from one line (LEAK_LINE) for the by-site test.
 */
public class AnalyzeShapes {
    static final class Node {
        Node a, b;
        long v;
        byte[] payload;
        Node(int n) { payload = new byte[n]; }
    }

    static Node chain, diamond, cycle, shared1, shared2;
    static WeakReference<Node> weak;
    static SoftReference<Node> soft;
    static Node weakAlsoStrong;
    static final List<String> dupStrings = new ArrayList<>();
    static final List<Object> empties = new ArrayList<>();
    static final class Link {
        final byte[] data;
        final Link next;
        Link(byte[] data, Link next) { this.data = data; this.next = next; }
    }
    static Link leak;
    static final ThreadLocal<Node> LOCAL = new ThreadLocal<>();
    static volatile boolean stop;

    static void build() {
        // chain of 100: each retains the rest
        Node head = new Node(10);
        Node c = head;
        for (int i = 0; i < 99; i++) { c.a = new Node(i); c = c.a; }
        chain = head;
        // diamond: top -> l, r -> bottom: bottom is retained by top alone
        Node top = new Node(1), l = new Node(2), r = new Node(3), bottom = new Node(1000);
        top.a = l; top.b = r; l.a = bottom; r.a = bottom;
        diamond = top;
        // cycle of 3 from a static
        Node x = new Node(5), y = new Node(6), z = new Node(7);
        x.a = y; y.a = z; z.a = x;
        cycle = x;
        // a subtree shared by two roots: neither retains it
        Node sub = new Node(4000);
        sub.a = new Node(100);
        shared1 = new Node(1); shared1.a = sub;
        shared2 = new Node(2); shared2.a = sub;
        // weak and soft referents: reachable through Reference.referent only
        weak = new WeakReference<>(new Node(3000));
        Node s = new Node(2000);
        soft = new SoftReference<>(s);
        weakAlsoStrong = new Node(700);
        weakAlsoStrong.a = new Node(1);
        new WeakReference<>(weakAlsoStrong);
        // duplicate strings and empty collections
        for (int i = 0; i < 50; i++) dupStrings.add(new String("duplicated value " + (i % 5)));
        for (int i = 0; i < 20; i++) empties.add(new ArrayList<>());
        for (int i = 0; i < 10; i++) empties.add(new HashMap<>(64));
    }

    public static void main(String[] args) throws Exception {
        build();
        Thread t = new Thread(() -> {
            LOCAL.set(new Node(5000));
            Node local = new Node(6000); // a Java frame root of this thread
            while (!stop) {
                try { Thread.sleep(50); } catch (InterruptedException e) { break; }
            }
            local.v++;
        }, "shapes-holder");
        t.setDaemon(true);
        t.start();
        boolean leaking = args.length > 0 && args[0].equals("leak");
        if (leaking)
            for (int i = 0; i < 2000; i++) leak = new Link(new byte[1024], leak); // LEAK_LINE
        System.out.println("ready");
        System.out.flush();
        if (args.length > 0 && args[args.length - 1].equals("wait")) Thread.sleep(600_000);
        stop = true;
    }
}
