import java.io.ByteArrayOutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/*
 * A JVM that lies to build/hprof (tests/integration/attach_safety.sh): it answers
 * HotSpot's attach protocol on its own socket, /tmp/.java_pid<pid>, made before the
 * JVM's listener could be (or on /tmp/.java_pid<args[1]>, another JVM's, taken over),
 * and to every `load` puts the text of the file args[0] (read at each request, so the
 * test can change it) into the reply file the tool named, as the agent would;
 * "REPLY-LINK PATH" makes the reply file a symbolic link to PATH, "REPLY-FIFO" a FIFO;
 * "HOLD" answers no request, the connection left open. It says "ready" once listening,
 * "request CMD" for each request it reads, and runs until killed.
 */
public class FakeAttachPeer {
    /* The request: protocol 1, "1\0cmd\0arg\0arg\0arg\0" (five NUL-ended fields). */
    static String[] readRequest(SocketChannel c) throws Exception {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        ByteBuffer b = ByteBuffer.allocate(1);
        int nuls = 0;
        while (nuls < 5 && c.read(b) > 0) {
            b.flip();
            byte x = b.get();
            b.clear();
            if (x == 0) nuls++;
            got.write(x);
        }
        return new String(got.toByteArray(), StandardCharsets.UTF_8).split("\0", -1);
    }

    static void answer(SocketChannel c, String text) throws Exception {
        c.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
    }

    public static void main(String[] args) throws Exception {
        Path lie = Path.of(args[0]);
        long owner = args.length > 1 ? Long.parseLong(args[1]) : ProcessHandle.current().pid();
        Path sock = Path.of("/tmp/.java_pid" + owner);
        /* Run with -Xrs, HotSpot starts its own listener at start-up, on that name: wait
         * for its socket (5 s at most), so that ours replaces it, never the reverse. */
        for (int i = 0; args.length < 2 && i < 100 && !Files.exists(sock); i++) {
            Thread.sleep(50);
        }
        Files.deleteIfExists(sock);
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(sock));
        System.out.println("ready");
        System.out.flush();
        for (;;) {
            try (SocketChannel c = server.accept()) {
                String[] f = readRequest(c);
                System.out.println("request " + (f.length > 1 ? f[1] : "?"));
                System.out.flush();
                String text = Files.readString(lie);
                if (text.startsWith("HOLD")) {
                    Thread.sleep(Long.MAX_VALUE);
                }
                if (f.length < 5 || !f[1].equals("load")) {
                    answer(c, "0\n1\n");          /* getversion: protocol 1 */
                    continue;
                }
                String opts = f[4];
                int at = opts.indexOf("reply=");
                if (at >= 0) {
                    int end = opts.indexOf(',', at);
                    Path reply = Path.of(opts.substring(at + 6, end < 0 ? opts.length() : end));
                    if (text.startsWith("REPLY-LINK ")) {
                        Files.createSymbolicLink(reply, Path.of(text.substring(11).trim()));
                    } else if (text.startsWith("REPLY-FIFO")) {
                        new ProcessBuilder("mkfifo", reply.toString()).inheritIO().start().waitFor();
                    } else {
                        Files.writeString(reply, text, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                    }
                }
                answer(c, "0\nreturn code: 0\n");
            } catch (Exception e) {
                System.out.println("request failed: " + e);
            }
        }
    }
}
