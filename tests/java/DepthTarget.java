import java.io.File;

/*
 * A long-running program for tests/integration/cpu_times_depth.sh: main() calls
 * AttachTarget.hot() over and over, briefly, so that cpu=times hands its calls over
 * often. It prints "ready", runs while the file args[0] exists (at most args[1] seconds),
 * then prints "done".
 */
public class DepthTarget {
    public static void main(String[] args) throws Exception {
        File flag = new File(args[0]);
        long end = System.currentTimeMillis() + 1000L * Long.parseLong(args[1]);
        System.out.println("ready");
        System.out.flush();
        while (flag.exists() && System.currentTimeMillis() < end) {
            for (int i = 0; i < 10_000; i++) AttachTarget.sink += AttachTarget.hot(i & 15);
        }
        System.out.println("done");
    }
}
