import java.util.ArrayList;
import java.util.List;

/* 2,000,000 small objects from one site, every fourth kept: for sampled heap=sites. */
public class SitesMany {
    static final class Cell { long a, b; Cell(long a) { this.a = a; } }

    static final List<Cell> keep = new ArrayList<>(500_000);   // live until the exit dump

    public static void main(String[] args) {
        for (int i = 0; i < 2_000_000; i++) {
            Cell c = new Cell(i);
            if ((i & 3) == 0) keep.add(c);
        }
        System.out.println("kept " + keep.size());
    }
}
