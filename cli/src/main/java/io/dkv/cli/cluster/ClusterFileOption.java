package io.dkv.cli.cluster;

import picocli.CommandLine.Option;

import java.nio.file.Path;

/**
 * {@code --cluster FILE}: the cluster file that {@code dkv up} writes and {@code dkv put}, {@code get} and {@code del}
 * read, one picocli mixin for all of them so that both ends name the same file the same way.
 */
public final class ClusterFileOption
{
    @Option(names = "--cluster", paramLabel = "FILE",
        description = "The cluster file: where ./dkv up describes its cluster, and where ./dkv put, get and del find " +
            "it (default: <tmp>/dkv-up/cluster.properties).")
    private Path cluster;

    /** @return the file given, or the default one. */
    Path path()
    {
        return cluster != null ? cluster : ClusterFile.defaultPath();
    }
}
