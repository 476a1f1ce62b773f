/*
 * Three quarters of the CPU in partA, one quarter in partB: the same loop in two methods,
 * run three times as long in A. Prints the process's CPU time (all its threads, from
 * /proc/self/stat) at the end, for the sample-count check.
 */
import java.nio.file.Files;
import java.nio.file.Paths;

public class Split {
    static volatile long sink;

    static long partA(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) s += (i * 0x9E3779B9L) ^ (s >>> 11);
        return s;
    }

    static long partB(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) s += (i * 0x9E3779B9L) ^ (s >>> 11);
        return s;
    }

    /* utime + stime of the whole process, in ms (clock ticks of 10 ms). */
    static long processCpuMs() throws Exception {
        String stat = new String(Files.readAllBytes(Paths.get("/proc/self/stat")));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10;
    }

    public static void main(String[] args) throws Exception {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 2000;
        long end = System.currentTimeMillis() + ms;
        while (System.currentTimeMillis() < end) {
            sink += partA(3_000_000);
            sink += partB(1_000_000);
        }
        System.out.println("cpu_ms=" + processCpuMs());
        System.out.println("done");
    }
}
