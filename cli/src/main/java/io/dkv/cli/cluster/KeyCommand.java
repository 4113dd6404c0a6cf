package io.dkv.cli.cluster;

import io.dkv.client.KvClient;
import io.dkv.process.AotTraining;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;

/**
 * What {@code dkv put}, {@code get} and {@code del} share: the cluster to attach to and the key.
 */
abstract class KeyCommand implements Callable<Integer>
{
    /** Set by {@code ./dkv} on the run that trains the AOT cache: the file it writes once it reached the store. */
    static final String AOT_SERVED_MARKER_PROP_NAME = "dkv.cli.aot.served.marker";

    @Spec
    private CommandSpec spec;

    @Mixin
    private ClusterFileOption cluster;

    @Parameters(index = "0", paramLabel = "KEY", description = "The key (UTF-8).")
    private String key;

    public final Integer call()
    {
        try (ClusterClient attached = ClusterClient.attach(cluster))
        {
            final int status =
                run(attached.client(), key.getBytes(StandardCharsets.UTF_8), spec.commandLine().getOut());
            AotTraining.markServed(AOT_SERVED_MARKER_PROP_NAME);
            return status;
        }
    }


    /** @return the exit status. */
    abstract int run(KvClient client, byte[] key, PrintWriter out);
}
