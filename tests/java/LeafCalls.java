public class LeafCalls {
    static long acc;
    static long leaf(long x) { return x * 31 + 7; }
    static void mid(int n) { for (int i = 0; i < n; i++) acc = leaf(acc + i); }
    public static void main(String[] a) {
        for (int k = 0; k < 321; k++) mid(k < 72 ? 170 : 169);
        System.out.println(acc);
    }
}
