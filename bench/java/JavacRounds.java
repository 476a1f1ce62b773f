import java.util.Arrays;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Runs javac in this JVM ROUNDS times on the same arguments, as a long-lived build server
 * would, and prints "round N: MS ms" after each, so that bench/run.sh reports the cost after
 * the JIT has warmed up beside the start-up one (round 1 is what a plain javac run pays).
 *
 *   java JavacRounds ROUNDS JAVAC_ARGS...      (@argfiles work as with the javac launcher)
 */
public final class JavacRounds {
    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        String[] javacArgs = Arrays.copyOfRange(args, 1, args.length);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        Rounds.repeat(rounds, () -> {
            int status = javac.run(null, null, null, javacArgs);
            if (status != 0) {
                System.out.println("JavacRounds: javac exited " + status);
                System.exit(1);
            }
            return status;
        });
        System.out.println("JavacRounds done: rounds=" + rounds);
    }
}
