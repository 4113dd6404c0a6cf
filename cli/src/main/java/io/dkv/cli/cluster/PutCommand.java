package io.dkv.cli.cluster;

import io.dkv.client.KvClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/**
 * {@code dkv put KEY VALUE} against the local cluster.
 */
@Command(name = "put", mixinStandardHelpOptions = true,
    description = "Set a key's value in the local cluster (./dkv up); prints OK.")
public final class PutCommand extends KeyCommand
{
    @Parameters(index = "1", paramLabel = "VALUE", description = "The value (UTF-8).")
    private String value;

    int run(final KvClient client, final byte[] key, final PrintWriter out)
    {
        client.put(key, value.getBytes(StandardCharsets.UTF_8));
        out.println("OK");
        return 0;
    }
}
