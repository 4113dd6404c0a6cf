package io.dkv.load.cluster;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;

/**
 * {@code dkv put KEY VALUE} against the local cluster.
 */
@Command(name = "put", mixinStandardHelpOptions = true, description = "Set a key's value in the local cluster (./dkv up); prints OK.")
public final class PutCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Mixin
    private ClusterClient.Options cluster;

    @Parameters(index = "0", paramLabel = "KEY", description = "The key (UTF-8).")
    private String key;

    @Parameters(index = "1", paramLabel = "VALUE", description = "The value (UTF-8).")
    private String value;

    public Integer call()
    {
        try (ClusterClient attached = ClusterClient.attach(cluster))
        {
            attached.client().put(key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8));
            spec.commandLine().getOut().println("OK");
        }
        return 0;
    }
}
