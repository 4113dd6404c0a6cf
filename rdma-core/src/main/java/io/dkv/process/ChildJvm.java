package io.dkv.process;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * How a dkv process starts another dkv process's JVM: this JVM's java, the options of this JVM that every dkv process
 * needs (module access, native access, the collector; not its heap or anything a benchmark added), and, for a compute
 * node, the JDK AOT cache that {@code ./dkv} names in {@link #AOT_CACHE_ENV} once its first compute node trained one.
 * The autoscaler, {@code ./dkv up}, the check harness and the benchmarks start their children so, each child on this
 * JVM's class path with its role's own main ({@code ComputeNodeCommand}, {@code MetaCommand}, ...), not {@code ./dkv}'s
 * top-level command, which lives in a module that depends on them all.
 */
public final class ChildJvm
{
    /** The environment variable in which {@code ./dkv} names the trained AOT cache of compute nodes. */
    public static final String AOT_CACHE_ENV = "DKV_AOT_CACHE";
    private static final List<String> INHERITED_PREFIXES = List.of(
        "--add-opens", "--add-exports", "--enable-native-access", "--sun-misc-unsafe-memory-access", "-XX:+Use");

    private ChildJvm()
    {
    }

    /** @return java and the options of this JVM every dkv process runs with. */
    public static List<String> java()
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (final String option : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (INHERITED_PREFIXES.stream().anyMatch(option::startsWith))
            {
                command.add(option);
            }
        }
        return command;
    }

    /** @return the options that start a compute node with the trained AOT cache, or none while there is none. */
    public static List<String> computeNodeAotCache()
    {
        final String aotCache = System.getenv(AOT_CACHE_ENV);
        return aotCache != null && Files.isRegularFile(Path.of(aotCache)) ?
            List.of("-XX:AOTCache=" + aotCache, "-Xlog:aot=off", "-Xlog:cds=off") : List.of();
    }
}
