import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;

/*
 * A small independent reader of binary heap dumps, for the heap=dump tests.
 *   HeapDumpRead FILE CLASS...
 * prints, for every instance of each named class (Java names, e.g. HeapDumpKnown$Known):
 *   OBJ <Class> <id>            then  "  <field>=<value>" for its fields and its supers'
 * for each named class: "STATIC <Class>.<field>=<value>"; for every root:
 *   ROOT <kind> <id> <class of the object> [thread=<serial> frame=<n>]
 * and at the end "UNRESOLVED <n>" (references to objects the dump does not hold),
 * "OBJECTS <n>", "DUPLICATES <n>". A reference prints as @<hex id>, followed by the
 * String's text in quotes when it is a String, or by the array's values in [] when it is
 * a primitive or object array.
 */
public class HeapDumpRead {
    static int idSize;
    static final Map<Long, String> strings = new HashMap<>();
    static final Map<Long, String> classNames = new HashMap<>();      // class object id -> name
    static final Map<Long, long[]> classInfo = new HashMap<>();       // id -> {super}
    static final Map<Long, List<String[]>> classFields = new HashMap<>(); // id -> [name, type]
    static final Map<Long, List<Object[]>> classStatics = new HashMap<>(); // [name, type, value]
    static final Map<Long, Object[]> objects = new HashMap<>();       // id -> {kind, class or type, payload}
    static final List<Object[]> roots = new ArrayList<>();
    static int duplicates;

    static long id(DataInputStream in) throws IOException { return idSize == 4 ? in.readInt() & 0xffffffffL : in.readLong(); }

    static Object value(DataInputStream in, int type) throws IOException {
        switch (type) {
            case 2: return new Ref(id(in));
            case 4: return in.readByte() != 0;
            case 5: return in.readChar();
            case 6: return in.readFloat();
            case 7: return in.readDouble();
            case 8: return in.readByte();
            case 9: return in.readShort();
            case 10: return in.readInt();
            case 11: return in.readLong();
            default: throw new IOException("bad type " + type);
        }
    }

    static final class Ref {
        final long id;
        Ref(long id) { this.id = id; }
    }

    static void put(long id, Object[] o) {
        if (objects.put(id, o) != null) duplicates++;
    }

    static void heap(DataInputStream in, long len) throws IOException {
        long end = len;
        CountingStream cs = counting;
        long start = cs.count;
        while (cs.count - start < end) {
            int t = in.readUnsignedByte();
            switch (t) {
                case 0xFF: case 0x05: case 0x07: roots.add(new Object[]{t, id(in), 0, 0}); break;
                case 0x01: roots.add(new Object[]{t, id(in), 0, 0}); id(in); break;
                case 0x02: case 0x03: roots.add(new Object[]{t, id(in), in.readInt(), in.readInt()}); break;
                case 0x04: case 0x06: roots.add(new Object[]{t, id(in), in.readInt(), 0}); break;
                case 0x08: roots.add(new Object[]{t, id(in), in.readInt(), 0}); in.readInt(); break;
                case 0x20: {
                    long cid = id(in); in.readInt();
                    long sup = id(in); id(in); id(in); id(in); id(in); id(in); in.readInt();
                    int ncp = in.readUnsignedShort();
                    for (int i = 0; i < ncp; i++) { in.readUnsignedShort(); value(in, in.readUnsignedByte()); }
                    List<Object[]> st = new ArrayList<>();
                    int ns = in.readUnsignedShort();
                    for (int i = 0; i < ns; i++) {
                        String n = strings.get(id(in)); int ty = in.readUnsignedByte();
                        st.add(new Object[]{n, ty, value(in, ty)});
                    }
                    List<String[]> fl = new ArrayList<>();
                    int nf = in.readUnsignedShort();
                    for (int i = 0; i < nf; i++) { String n = strings.get(id(in)); fl.add(new String[]{n, "" + in.readUnsignedByte()}); }
                    classInfo.put(cid, new long[]{sup});
                    classFields.put(cid, fl);
                    classStatics.put(cid, st);
                    put(cid, new Object[]{"class", cid, null});
                    break;
                }
                case 0x21: {
                    long oid = id(in); in.readInt(); long cid = id(in); int n = in.readInt();
                    byte[] b = new byte[n]; in.readFully(b);
                    put(oid, new Object[]{"inst", cid, b});
                    break;
                }
                case 0x22: {
                    long oid = id(in); in.readInt(); int n = in.readInt(); long cid = id(in);
                    long[] e = new long[n];
                    for (int i = 0; i < n; i++) e[i] = id(in);
                    put(oid, new Object[]{"oarr", cid, e});
                    break;
                }
                case 0x23: {
                    long oid = id(in); in.readInt(); int n = in.readInt(); int ty = in.readUnsignedByte();
                    Object[] v = new Object[n];
                    for (int i = 0; i < n; i++) v[i] = value(in, ty);
                    put(oid, new Object[]{"parr", ty, v});
                    break;
                }
                default: throw new IOException("bad sub-record 0x" + Integer.toHexString(t));
            }
        }
    }

    static final class CountingStream extends FilterInputStream {
        long count;
        CountingStream(InputStream in) { super(in); }
        @Override public int read() throws IOException { int r = super.read(); if (r >= 0) count++; return r; }
        @Override public int read(byte[] b, int o, int l) throws IOException { int r = super.read(b, o, l); if (r > 0) count += r; return r; }
        @Override public long skip(long n) throws IOException { long r = super.skip(n); count += r; return r; }
    }
    static CountingStream counting;

    static String className(long cid) { String n = classNames.get(cid); return n == null ? "?" : n; }

    static List<Object[]> fieldsOf(long oid) {       // [name, value] in dump order
        Object[] o = objects.get(oid);
        List<Object[]> out = new ArrayList<>();
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream((byte[]) o[2]));
            for (long c = (Long) o[1]; c != 0 && classFields.containsKey(c); c = classInfo.get(c)[0])
                for (String[] f : classFields.get(c)) out.add(new Object[]{f[0], value(in, Integer.parseInt(f[1]))});
        } catch (IOException e) {
            out.add(new Object[]{"<error>", e.getMessage()});
        }
        return out;
    }

    static String stringText(long oid) {
        Object[] o = objects.get(oid);
        if (o == null || !o[0].equals("inst") || !className((Long) o[1]).equals("java.lang.String")) return null;
        Object value = null; byte coder = 0;
        for (Object[] f : fieldsOf(oid)) {
            if (f[0].equals("value")) value = f[1];
            if (f[0].equals("coder")) coder = (Byte) f[1];
        }
        if (!(value instanceof Ref)) return null;
        Object[] arr = objects.get(((Ref) value).id);
        if (arr == null || !arr[0].equals("parr")) return null;
        Object[] v = (Object[]) arr[2];
        byte[] b = new byte[v.length];
        for (int i = 0; i < v.length; i++) b[i] = (Byte) v[i];
        return coder == 0 ? new String(b, StandardCharsets.ISO_8859_1) : new String(b, StandardCharsets.UTF_16BE);
    }

    static String show(Object v) {
        if (!(v instanceof Ref)) return String.valueOf(v);
        long r = ((Ref) v).id;
        if (r == 0) return "null";
        StringBuilder sb = new StringBuilder("@" + Long.toHexString(r));
        String s = stringText(r);
        Object[] o = objects.get(r);
        if (s != null) sb.append(" \"").append(s).append('"');
        else if (o != null && o[0].equals("parr")) sb.append(' ').append(Arrays.toString((Object[]) o[2]));
        else if (o != null && o[0].equals("oarr")) {
            sb.append(" [");
            long[] e = (long[]) o[2];
            for (int i = 0; i < e.length; i++) sb.append(i > 0 ? ", " : "").append(e[i] == 0 ? "null" : "@" + Long.toHexString(e[i]));
            sb.append(']');
        } else if (o != null && o[0].equals("inst")) sb.append(' ').append(className((Long) o[1]));
        return sb.toString();
    }

    static String kindName(int t) {
        switch (t) {
            case 0xFF: return "UNKNOWN"; case 1: return "JNI_GLOBAL"; case 2: return "JNI_LOCAL";
            case 3: return "JAVA_FRAME"; case 4: return "NATIVE_STACK"; case 5: return "STICKY_CLASS";
            case 6: return "THREAD_BLOCK"; case 7: return "MONITOR_USED"; case 8: return "THREAD_OBJECT";
            default: return "?" + t;
        }
    }

    public static void main(String[] args) throws IOException {
        try (DataInputStream in = new DataInputStream(counting = new CountingStream(new BufferedInputStream(new FileInputStream(args[0]), 1 << 16)))) {
            while (in.readByte() != 0) { }
            idSize = in.readInt();
            in.readLong();
            while (true) {
                int tag = in.read();
                if (tag < 0) break;
                in.readInt();
                long len = in.readInt() & 0xffffffffL;
                if (tag == 0x01) {
                    long sid = id(in);
                    byte[] b = new byte[(int) len - idSize]; in.readFully(b);
                    strings.put(sid, new String(b, StandardCharsets.UTF_8));
                } else if (tag == 0x02) {
                    in.readInt(); long cid = id(in); in.readInt(); classNames.put(cid, strings.get(id(in)));
                } else if (tag == 0x0C || tag == 0x1C) {
                    heap(in, len);
                } else {
                    in.skipNBytes(len);
                }
            }
        }
        Set<String> want = new HashSet<>(Arrays.asList(args).subList(1, args.length));
        for (Map.Entry<Long, Object[]> e : new TreeMap<>(objects).entrySet()) {
            Object[] o = e.getValue();
            if (!o[0].equals("inst") || !want.contains(className((Long) o[1]))) continue;
            System.out.println("OBJ " + className((Long) o[1]) + " " + Long.toHexString(e.getKey()));
            for (Object[] f : fieldsOf(e.getKey())) System.out.println("  " + f[0] + "=" + show(f[1]));
        }
        for (Map.Entry<Long, List<Object[]>> e : classStatics.entrySet()) {
            if (!want.contains(className(e.getKey()))) continue;
            for (Object[] s : e.getValue()) System.out.println("STATIC " + className(e.getKey()) + "." + s[0] + "=" + show(s[2]));
        }
        for (Object[] r : roots) {
            long oid = (Long) r[1];
            Object[] o = objects.get(oid);
            String cls = o == null ? "-" : o[0].equals("class") ? "class:" + className(oid) : o[0].equals("parr") ? "primitive-array" : className((Long) o[1]);
            int kind = (Integer) r[0];
            String extra = kind == 2 || kind == 3 ? " thread=" + r[2] + " frame=" + r[3] : kind == 4 || kind == 6 || kind == 8 ? " thread=" + r[2] : "";
            System.out.println("ROOT " + kindName(kind) + " " + Long.toHexString(oid) + " " + cls + extra);
        }
        int unresolved = 0;
        for (Object[] r : roots) if (!objects.containsKey((Long) r[1])) unresolved++;
        for (Map.Entry<Long, Object[]> e : objects.entrySet()) {
            Object[] o = e.getValue();
            if (o[0].equals("inst")) {
                for (Object[] f : fieldsOf(e.getKey())) if (f[1] instanceof Ref && ((Ref) f[1]).id != 0 && !objects.containsKey(((Ref) f[1]).id)) unresolved++;
            } else if (o[0].equals("oarr")) {
                for (long x : (long[]) o[2]) if (x != 0 && !objects.containsKey(x)) unresolved++;
            } else if (o[0].equals("class")) {
                for (Object[] s : classStatics.get(e.getKey())) if (s[2] instanceof Ref && ((Ref) s[2]).id != 0 && !objects.containsKey(((Ref) s[2]).id)) unresolved++;
            }
        }
        System.out.println("OBJECTS " + objects.size());
        System.out.println("DUPLICATES " + duplicates);
        System.out.println("UNRESOLVED " + unresolved);
    }
}
