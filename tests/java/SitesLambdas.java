import java.util.function.IntSupplier;

/**
 * heap=sites: 100,000 capturing lambdas, each a new object of the lambda's hidden class
 * (from JDK 24 on the VM makes them through a MethodHandle and reports each one).
 */
public final class SitesLambdas {
    private SitesLambdas() {
    }

    static IntSupplier capture(int i) {
        return () -> i + 1;
    }

    public static void main(String[] args) {
        long sum = 0;
        for (int i = 0; i < 100_000; i++) sum += capture(i).getAsInt();
        System.out.println("sum " + sum);
    }
}
