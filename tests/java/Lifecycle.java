/*
 * Ends in the way its first argument names, after a second of busy work:
 *   return            main returns normally
 *   exit-thread N     another thread calls System.exit(N)
 *   throw             main throws an uncaught exception
 *   run S             prints "ready" and keeps busy for S seconds (for signals)
 */
public class Lifecycle {
    static volatile long sink;

    static void busy(long ms) {
        long end = System.currentTimeMillis() + ms;
        while (System.currentTimeMillis() < end) {
            for (int i = 0; i < 100_000; i++) sink += i ^ (sink >>> 3);
        }
    }

    public static void main(String[] args) throws Exception {
        String how = args.length > 0 ? args[0] : "return";
        switch (how) {
            case "exit-thread": {
                int code = Integer.parseInt(args[1]);
                Thread t = new Thread(() -> { busy(1000); System.exit(code); }, "exiter");
                t.start();
                busy(60_000);
                break;
            }
            case "throw":
                busy(1000);
                throw new IllegalStateException("thrown on purpose");
            case "run":
                System.out.println("ready");
                System.out.flush();
                busy(Long.parseLong(args[1]) * 1000);
                break;
            default:
                busy(1000);
        }
        System.out.println("finished " + how);
    }
}
