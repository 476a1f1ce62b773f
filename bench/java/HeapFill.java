/*
 * heap=dump benchmark: fills the heap with about MIB MiB of small live objects (a 32-byte
 * node with a long, an int and two references, each with its own small byte[]), prints
 * "ready", then sleeps until killed, for a heap dump (SIGQUIT or jcmd GC.heap_dump) to
 * be timed.
 *   HeapFill MIB
 */
public class HeapFill {
    static final class Node {
        long key;
        int count;
        Node next;
        byte[] payload;
    }

    static Node[] heads;

    public static void main(String[] args) throws Exception {
        long target = Long.parseLong(args[0]) << 20;
        heads = new Node[1 << 16];
        long bytes = (long) heads.length * 4;
        for (long i = 0; bytes < target; i++) {
            Node n = new Node();
            n.key = i;
            n.count = (int) (i * 31);
            n.payload = new byte[8 + (int) (i & 7)];
            int h = (int) (i & (heads.length - 1));
            n.next = heads[h];
            heads[h] = n;
            bytes += 32 + ((16 + 8 + (i & 7) + 7) & ~7L);
        }
        System.gc();
        System.out.println("ready");
        Thread.sleep(Long.MAX_VALUE);
    }
}
