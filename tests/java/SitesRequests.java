/*
 * Per-request garbage beside a few long-lived big arrays, as a web server makes it: 1024
 * request paths (route() goes through a() or b() at each of 10 levels, by the path's
 * bits), each taking 25 requests whose handle() allocates two char[12] (40 bytes each)
 * and drops them; four long[1 << 20] stay live to the end. Each path's stack allocates
 * 2,000 bytes, far under 0.01% of what the run allocates, and nothing of it is live:
 * SITES, ranked and cut by live bytes, leaves them all out; a view must hold them all
 * (51,200 char[], 2,048,000 bytes).
 */
public class SitesRequests {
    static final int PATHS = 1024, LEVELS = 10, REQUESTS = 25;
    static final long[][] keep = new long[4][];
    static long sink;

    public static void main(String[] args) {
        for (int i = 0; i < keep.length; i++) keep[i] = new long[1 << 20];
        for (int r = 0; r < REQUESTS; r++)
            for (int path = 0; path < PATHS; path++) route(path, LEVELS);
        System.out.println("requests " + REQUESTS * PATHS + " kept " + keep.length + " sink " + sink);
    }

    static void route(int path, int level) {
        if (level == 0)
            handle();
        else if ((path & 1) == 0)
            a(path >> 1, level - 1);
        else
            b(path >> 1, level - 1);
    }

    static void a(int path, int level) { route(path, level); }

    static void b(int path, int level) { route(path, level); }

    static void handle() {
        char[] name = new char[12], value = new char[12];
        name[0] = 'n';
        value[0] = 'v';
        sink += name[0] + value[0] + name.length;
    }
}
