package io.dkv.load.cluster;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;

/**
 * {@code dkv get KEY} against the local cluster.
 */
@Command(name = "get", mixinStandardHelpOptions = true,
    description = "Print a key's value from the local cluster (./dkv up), or (nil) and exit status 1 when it has none.")
public final class GetCommand implements Callable<Integer>
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
            final byte[] value = attached.client().get(key.getBytes(StandardCharsets.UTF_8));
            spec.commandLine().getOut().println(value == null ? "(nil)" : new String(value, StandardCharsets.UTF_8));
            return value == null ? 1 : 0;
        }
    }
}
