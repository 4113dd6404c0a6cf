package io.dkv.cli.cluster;

import io.dkv.client.KvClient;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/**
 * {@code dkv get KEY} against the local cluster.
 */
@Command(name = "get", mixinStandardHelpOptions = true,
    description = "Print a key's value from the local cluster (./dkv up), or (nil) and exit status 1 when it has none.")
public final class GetCommand extends KeyCommand
{
    int run(final KvClient client, final byte[] key, final PrintWriter out)
    {
        final byte[] value = client.get(key);
        out.println(value == null ? "(nil)" : new String(value, StandardCharsets.UTF_8));
        return value == null ? 1 : 0;
    }
}
