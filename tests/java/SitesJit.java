import java.util.Arrays;

/*
 * exact heap=sites where HotSpot's C2 would make objects without running the bytecode
 * that counts them: a StringBuilder chain it turns into one string, boxes it drops when
 * they are only unboxed again, and intrinsics that allocate inline. 200,000 of each, from
 * hot loops: StringBuilder and String in sb, Integer in box, long[] in reflect, String[]
 * in copy, String in concat.
 */
public class SitesJit {
    static final int N = 200_000;
    static Object sink;
    static long sum;

    static void sb() { for (int i = 0; i < N; i++) sink = new StringBuilder().append(i).toString(); }
    static void box() {
        for (int i = 0; i < N; i++) {
            Integer b = Integer.valueOf(i + 1000);
            sum += b.intValue();
        }
    }
    static void reflect() { for (int i = 0; i < N; i++) sink = java.lang.reflect.Array.newInstance(long.class, 3); }
    static void copy(String[] from) { for (int i = 0; i < N; i++) sink = Arrays.copyOf(from, 7); }
    static void concat() { for (int i = 0; i < N; i++) sink = "x" + i; }

    public static void main(String[] args) {
        sb();
        box();
        reflect();
        copy(new String[] {"a", "b"});
        concat();
        System.out.println("done " + (sum > 0));
    }
}
