package io.dkv.cli.cluster;

import io.dkv.client.KvClient;
import picocli.CommandLine.Command;

import java.io.PrintWriter;

/**
 * {@code dkv del KEY} against the local cluster.
 */
@Command(name = "del", mixinStandardHelpOptions = true,
    description = "Delete a key in the local cluster (./dkv up); prints 1 when it had a value, 0 when it had none.")
public final class DelCommand extends KeyCommand
{
    int run(final KvClient client, final byte[] key, final PrintWriter out)
    {
        out.println(client.delete(key) ? "1" : "0");
        return 0;
    }
}
