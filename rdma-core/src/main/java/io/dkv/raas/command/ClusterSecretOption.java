package io.dkv.raas.command;

import picocli.CommandLine.Option;

import java.nio.file.Path;

/**
 * {@code --cluster-secret-file}: the file holding the cluster secret that MetaServer RPCs are
 * authenticated with (at least 32 random bytes as hex digits, readable by its owner only;
 * {@code ./dkv up} writes one), for the MetaServer itself; a command that talks to one takes it with
 * {@code --meta}, as {@link ClusterOptions}.
 */
public final class ClusterSecretOption
{
    static final String DESCRIPTION = "File with the cluster secret (at least 64 hex digits, mode 0600) that " +
        "MetaServer RPCs are authenticated with; every MetaServer and node of a cluster uses the same.";

    @Option(names = "--cluster-secret-file", paramLabel = "FILE", description = DESCRIPTION)
    private Path file;

    /** @return the file given, or null. */
    public Path file()
    {
        return file;
    }
}
