/*
 * exact heap=sites from hot, compiled code, arrays only: newarray, anewarray and
 * multianewarray at one method's sites, called from two others, 1,000,000 times each.
 * From compiled code the agent finds most of these traces by the return address of the
 * call that follows each array's bytecode (or by that and its caller's, when the
 * allocating method was not inlined); the counts and frames must be what a walk of
 * every stack gives. Each caller makes 250,000 of each: int[] (sizes 0 and 4), long[2],
 * String[1] and int[2][3] (which makes two int[3] more).
 */
public class SitesArrays {
    static Object sink;

    static Object make(int i) {
        switch (i & 3) {
            case 0: return new int[i & 4];
            case 1: return new long[2];
            case 2: return new String[1];
            default: return new int[2][3];
        }
    }

    static Object a1(int i) { return make(i); }
    static Object a2(int i) { return make(i); }

    public static void main(String[] args) {
        for (int i = 0; i < 1_000_000; i++) {
            sink = a1(i);
            sink = a2(i);
        }
        System.out.println("done");
    }
}
