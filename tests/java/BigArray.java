/**
 * Holds one long[] of the given length (default 600,000,000: 4.8 GB) while the agent
 * dumps the heap at exit, for tests of objects over 4 GiB.
 *   java -Xmx6g BigArray [LENGTH]
 */
public final class BigArray {
    static long[] big;

    private BigArray() {
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 600_000_000;
        big = new long[n];
        big[0] = 0x0102030405060708L;
        big[n - 1] = -1L;
        System.out.println("big long[] of " + n + " elements");
    }
}
