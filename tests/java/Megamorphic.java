// SPDX-License-Identifier: Apache-2.0
// A hot loop whose calls are megamorphic: an interface call and a virtual call, each with
// six receiver classes, so compiled code goes through itable and vtable stubs and enters
// and leaves the small callees all the time (their prologues and epilogues). Most of the
// CPU is in the callees and the loop, where a stack walk must find them.
public class Megamorphic {
    interface Shape { long area(long x); }

    abstract static class Base implements Shape { abstract long side(long x); }

    static final class A extends Base { public long area(long x) { return x * 3 + 1; } long side(long x) { return x ^ 5; } }
    static final class B extends Base { public long area(long x) { return x * 5 + 2; } long side(long x) { return x ^ 7; } }
    static final class C extends Base { public long area(long x) { return x * 7 + 3; } long side(long x) { return x ^ 11; } }
    static final class D extends Base { public long area(long x) { return x * 11 + 4; } long side(long x) { return x ^ 13; } }
    static final class E extends Base { public long area(long x) { return x * 13 + 5; } long side(long x) { return x ^ 17; } }
    static final class F extends Base { public long area(long x) { return x * 17 + 6; } long side(long x) { return x ^ 19; } }

    static volatile long sink;

    static long hot(Shape[] shapes, Base[] bases, int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += shapes[i % shapes.length].area(s);
            s += bases[(i >> 1) % bases.length].side(s);
        }
        return s;
    }

    public static void main(String[] args) {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 2000;
        Base[] all = {new A(), new B(), new C(), new D(), new E(), new F()};
        Shape[] shapes = all.clone();
        long end = System.currentTimeMillis() + ms;
        while (System.currentTimeMillis() < end) sink += hot(shapes, all, 1_000_000);
        System.out.println("done");
    }
}
