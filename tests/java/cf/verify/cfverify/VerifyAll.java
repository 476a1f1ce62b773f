package cfverify;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Loads and initialises every boot class named in a file (one binary name a line), so that
 *  -Xverify:all verifies each of them; prints every VerifyError and a summary line. Other
 *  failures (a class that cannot initialise outside its usual context) are only counted. */
public class VerifyAll {
    public static void main(String[] args) throws Exception {
        List<String> names = Files.readAllLines(Path.of(args[0]));
        int ok = 0, verifyErrors = 0, other = 0;
        for (String name : names) {
            try {
                Class.forName(name, true, null);
                ok++;
            } catch (VerifyError e) {
                verifyErrors++;
                System.out.println("VerifyError " + name + ": " + e.getMessage());
            } catch (Throwable t) {
                other++;
            }
        }
        System.out.println("loaded=" + ok + " verify_errors=" + verifyErrors + " other=" + other);
    }
}
