import java.util.ArrayList;
import java.util.List;

/*
 * Arrays of varied sizes, all kept live to the end, at three sites (byte[], int[], long[]):
 * at each, 2,000 small ones (1 to 4 KB) and 40 big ones (64 KB to 1 MB), in a fixed
 * sequence; beside them short-lived small arrays from other sites. About 60 MB live.
 * With alloc_sample=, a small array that is sampled stands for hundreds of objects and a
 * big one for one or a few: a row's live estimate must weigh each sample as its
 * allocated estimate did, never more.
 */
public class SitesSampledLive {
    static final List<Object> keep = new ArrayList<>();
    static long sink;

    public static void main(String[] args) {
        long seed = 12345;
        for (int i = 0; i < 3 * 2040; i++) {
            seed = seed * 6364136223846793005L + 1442695040888963407L;
            int r = (int) (seed >>> 33);
            int bytes = (i / 3) % 51 == 50 ? 65536 << (r % 5) : 1024 + r % 3072;
            switch (i % 3) {
                case 0: keep.add(bytes(bytes)); break;
                case 1: keep.add(ints(bytes / 4)); break;
                default: keep.add(longs(bytes / 8)); break;
            }
            for (int j = 0; j < 10; j++) sink += bytes(64 + j).length + ints(16 + j).length + longs(8 + j).length;
        }
        System.out.println("kept " + keep.size() + " sink " + sink);
    }

    static byte[] bytes(int n) { return new byte[n]; }

    static int[] ints(int n) { return new int[n]; }

    static long[] longs(int n) { return new long[n]; }
}
