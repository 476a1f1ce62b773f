import java.io.File;
import java.lang.reflect.Method;

/**
 * Runs one Ant target of a build file ROUNDS times in this JVM, each time in a fresh Project
 * as the ant launcher would make it, and prints "round N: MS ms" after each. Ant is reached
 * by reflection so that the bench classes compile without ant.jar; its jars must be on the
 * class path when this runs. Warnings and errors of the build go to stderr.
 *
 *   java -cp ant.jar:ant-launcher.jar:. AntRounds ROUNDS BUILD_FILE TARGET
 */
public final class AntRounds {
    private static final int MSG_WARN = 1;  // org.apache.tools.ant.Project.MSG_WARN

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        File buildFile = new File(args[1]).getAbsoluteFile();
        String target = args[2];
        Rounds.repeat(rounds, () -> {
            build(buildFile, target);
            return 0;
        });
        System.out.println("AntRounds done: rounds=" + rounds);
    }

    /** One build: a new Project with a logger on stderr, configured from the file; runs TARGET. */
    private static void build(File buildFile, String target) throws Exception {
        Class<?> projectClass = Class.forName("org.apache.tools.ant.Project");
        Class<?> listenerClass = Class.forName("org.apache.tools.ant.BuildListener");
        Object project = projectClass.getConstructor().newInstance();
        Object logger = Class.forName("org.apache.tools.ant.DefaultLogger").getConstructor().newInstance();
        call(logger, "setMessageOutputLevel", int.class, MSG_WARN);
        call(logger, "setOutputPrintStream", java.io.PrintStream.class, System.err);
        call(logger, "setErrorPrintStream", java.io.PrintStream.class, System.err);
        call(project, "addBuildListener", listenerClass, logger);
        projectClass.getMethod("init").invoke(project);
        projectClass.getMethod("setUserProperty", String.class, String.class)
                .invoke(project, "ant.file", buildFile.getPath());
        Class.forName("org.apache.tools.ant.ProjectHelper")
                .getMethod("configureProject", projectClass, File.class).invoke(null, project, buildFile);
        call(project, "executeTarget", String.class, target);
    }

    private static void call(Object target, String name, Class<?> type, Object arg) throws Exception {
        Method m = target.getClass().getMethod(name, type);
        m.invoke(target, arg);
    }
}
