// SPDX-License-Identifier: Apache-2.0
// Burns CPU in the garbage collector: a large live set of small objects (about 1.5 million
// of them) and System.gc() in a loop, so that the GC's threads, not the program's, use
// most of the CPU. Prints the process's CPU time (user + system, ms) at the end.
public class GcBurn {
    static final class Node {
        Node next;
        long[] payload = new long[4];
    }

    public static void main(String[] args) throws Exception {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 3000;
        Node[] heads = new Node[64];
        for (int i = 0; i < 750_000; i++) {
            Node n = new Node();
            n.next = heads[i & 63];
            heads[i & 63] = n;
        }
        long end = System.currentTimeMillis() + ms;
        int gcs = 0;
        while (System.currentTimeMillis() < end) {
            System.gc();
            gcs++;
        }
        System.out.println("gcs=" + gcs + " live=" + heads.length);
        System.out.println("cpu_ms=" + ProcessCpu.ms());
        System.out.println("done");
    }
}
