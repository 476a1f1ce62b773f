import java.util.function.LongUnaryOperator;
public class LambdaWork {
    static long acc;
    static long work(long x) { long s = x; for (int i = 0; i < 2000; i++) s = s * 31 + i; return s; }
    public static void main(String[] a) {
        LongUnaryOperator f = x -> work(x) + 1;
        for (int k = 0; k < 200000; k++) acc += f.applyAsLong(k);
        System.out.println(acc != 0);
    }
}
