/*
 * Known call counts for cpu=times: leaf() is called exactly 123450 times from mid(),
 * mid() 12345 times from main(); thrower() unwinds 4 frames by exception 100 times;
 * work in a second thread too. Prints a result that does not depend on timing.
 */
public class TimedCalls {
    static int leaf(int x) {
        return x * 3 + 1;
    }

    static int mid(int x) {
        int s = 0;
        for (int i = 0; i < 10; i++) s += leaf(x + i);
        return s;
    }

    static void thrower(int n) {
        if (n == 0) throw new IllegalStateException("deep");
        thrower(n - 1);
    }

    static int catcher() {
        int caught = 0;
        for (int i = 0; i < 100; i++) {
            try {
                thrower(3);
            } catch (IllegalStateException e) {
                caught++;
            }
        }
        return caught;
    }

    static long other(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) s += leaf(i);
        return s;
    }

    public static void main(String[] args) throws Exception {
        long[] side = new long[1];
        Thread t = new Thread(() -> side[0] = other(777), "side");
        t.start();
        long s = 0;
        for (int i = 0; i < 12345; i++) s += mid(i);
        int caught = catcher();
        t.join();
        System.out.println("sum " + s + " caught " + caught + " side " + side[0]);
    }
}
