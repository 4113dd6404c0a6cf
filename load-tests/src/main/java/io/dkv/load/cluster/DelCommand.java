package io.dkv.load.cluster;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;

/**
 * {@code dkv del KEY} against the local cluster.
 */
@Command(name = "del", mixinStandardHelpOptions = true,
    description = "Delete a key in the local cluster (./dkv up); prints 1 when it had a value, 0 when it had none.")
public final class DelCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Mixin
    private ClusterClient.Options cluster;

    @Parameters(index = "0", paramLabel = "KEY", description = "The key (UTF-8).")
    private String key;

    public Integer call()
    {
        try (ClusterClient attached = ClusterClient.attach(cluster))
        {
            spec.commandLine().getOut().println(attached.client().delete(key.getBytes(StandardCharsets.UTF_8)) ? "1" : "0");
        }
        return 0;
    }
}
