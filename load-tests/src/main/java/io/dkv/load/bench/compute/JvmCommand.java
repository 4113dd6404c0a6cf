package io.dkv.load.bench.compute;

import io.dkv.process.ChildJvm;
import io.dkv.process.RoleMains;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * A java command line with the flags {@code ./dkv} gives a role: those of this JVM that every dkv process needs
 * (module access, native access, the collector: {@code ChildJvm}), not the benchmark's fixed heap.
 */
final class JvmCommand
{
    private JvmCommand()
    {
    }

    /** @return java and the flags every dkv process runs with. */
    static List<String> java()
    {
        return ChildJvm.java();
    }

    /**
     * @param options   JVM options after the common ones.
     * @param arguments the dkv subcommand, a role, and its arguments.
     * @return {@code ./dkv <arguments>} as a java command line, on this JVM's class path: the role's own main, which
     * {@code ./dkv} runs for a compute node too.
     */
    static List<String> dkv(final List<String> options, final List<String> arguments)
    {
        final List<String> command = java();
        command.addAll(options);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(RoleMains.mainClass(arguments.getFirst()));
        command.addAll(arguments.subList(1, arguments.size()));
        return command;
    }

    /** @return the class path's entries that are not JAR files: a JDK's AOT cache takes JARs only. */
    static List<String> nonJarClassPath()
    {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(entry -> !entry.endsWith(".jar") || Files.isDirectory(Path.of(entry)))
            .toList();
    }
}
