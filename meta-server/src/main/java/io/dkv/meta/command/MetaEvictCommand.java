package io.dkv.meta.command;

import io.dkv.raas.meta.MetaMessageWriter;
import io.dkv.raas.meta.MetaRpcDescriptor;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dkv meta evict --node N}: remove a node's record and its regions as an operator, whatever
 * its token (a node gone for good, or an id to free before its lease lapses).
 */
@Command(name = "evict", mixinStandardHelpOptions = true,
    description =
        "Remove a node and its regions from the MetaServer as an operator (authenticated with the cluster secret).")
public final class MetaEvictCommand extends MetaOperatorCall
{
    @Option(names = "--node", required = true, description = "The node id to remove.")
    long node;

    byte type()
    {
        return MetaRpcDescriptor.TYPE_DEREGISTER_NODE;
    }

    void body(final MetaMessageWriter writer)
    {
        // epoch 0: whichever incarnation is registered
        writer.putLong(node).putLong(0).putToken(null);
    }

    String done()
    {
        return "evicted node " + node;
    }
}
