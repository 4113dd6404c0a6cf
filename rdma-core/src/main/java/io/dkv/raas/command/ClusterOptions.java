package io.dkv.raas.command;

import io.dkv.raas.meta.MetaDirectoryContext;
import io.dkv.raas.meta.MetaEndpoint;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

import java.nio.file.Path;
import java.util.List;

/**
 * {@code --meta} and {@code --cluster-secret-file}: which MetaServers a process reaches its cluster through and the
 * secret it proves itself to them with. One picocli mixin for every command that talks to a cluster (driver, memory
 * node, compute node, autoscaler, the calls of {@code dkv meta}), so that each says it the same way; each command says
 * which of the two it requires, and when ({@link #requireMeta}, {@link #requireSecretFile}).
 */
public final class ClusterOptions
{
    @Option(names = "--meta", split = ",", paramLabel = "ENDPOINT",
        description = "MetaServer endpoint(s) of the cluster, as ./dkv meta prints them; several, comma-separated " +
            "or repeated, for a group of MetaServers.")
    private List<String> meta;

    @Option(names = "--cluster-secret-file", paramLabel = "FILE", description = ClusterSecretOption.DESCRIPTION)
    private Path secretFile;

    /** @return the endpoints given, as given; empty when none. */
    public List<String> meta()
    {
        return meta == null ? List.of() : meta;
    }

    /** Set the endpoints, for a command that parses its arguments without picocli. */
    public ClusterOptions meta(final List<String> meta)
    {
        this.meta = List.copyOf(meta);
        return this;
    }

    /** @return the file given, or null. */
    public Path secretFile()
    {
        return secretFile;
    }

    /** Set the secret file, for a command that parses its arguments without picocli. */
    public ClusterOptions secretFile(final Path secretFile)
    {
        this.secretFile = secretFile;
        return this;
    }

    /**
     * @param commandLine the command, for the usage error.
     * @param why         what the endpoints are for, said after "--meta is required: ".
     * @throws ParameterException when no endpoint was given.
     */
    public void requireMeta(final CommandLine commandLine, final String why)
    {
        if (meta().isEmpty())
        {
            throw new ParameterException(commandLine, "--meta is required: " + why);
        }
    }

    /**
     * @param commandLine the command, for the usage error.
     * @param why         what the secret is for, said after "--cluster-secret-file is required: ".
     * @throws ParameterException when no file was given.
     */
    public void requireSecretFile(final CommandLine commandLine, final String why)
    {
        if (secretFile == null)
        {
            throw new ParameterException(commandLine, "--cluster-secret-file is required: " + why);
        }
    }

    /**
     * @return the endpoints given, parsed.
     * @throws IllegalArgumentException naming an endpoint that is none.
     */
    public List<MetaEndpoint> endpoints()
    {
        return meta().stream().map(MetaEndpoint::parse).toList();
    }

    /** @return a directory's context for the MetaServers and secret given; the caller adds its clocks and roles. */
    public MetaDirectoryContext directoryContext()
    {
        return new MetaDirectoryContext().clusterSecretFile(secretFile).endpoints(endpoints());
    }

    /** @return these options as a command line takes them, for a process this one starts. */
    public List<String> arguments()
    {
        return List.of("--meta", String.join(",", meta()), "--cluster-secret-file", String.valueOf(secretFile));
    }
}
