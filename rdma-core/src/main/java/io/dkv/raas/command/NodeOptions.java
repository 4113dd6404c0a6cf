package io.dkv.raas.command;

import io.dkv.raas.RaasContext;
import io.dkv.verbs.VerbsContext;
import picocli.CommandLine.Option;

/**
 * {@code --node-id}, {@code --provider} and {@code --address}: how a node that draws its id (a driver, a memory node)
 * reaches the cluster's fabric. Shared by those commands as a picocli mixin, so they say it the same way.
 */
public final class NodeOptions
{
    @Option(names = "--node-id", defaultValue = "0",
        description = "This node's id; 0 draws one (default: ${DEFAULT-VALUE}).")
    private long nodeId;

    @Option(names = "--provider", defaultValue = "shm",
        description = "Verbs provider: shm, tcp, verbs (an RNIC) or auto (verbs where an RNIC is usable, else " +
            "shm) (default: ${DEFAULT-VALUE}).")
    private String provider;

    @Option(names = "--address", defaultValue = "127.0.0.1:0",
        description = "For tcp, the ip:port the NIC engine listens on (default: ${DEFAULT-VALUE}).")
    private String address;

    /** @return a RaaS context with the node id, provider and address given. */
    public RaasContext raasContext()
    {
        return new RaasContext().verbs(new VerbsContext().provider(provider).tcpAddress(address)).nodeId(nodeId);
    }
}
