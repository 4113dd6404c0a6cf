package io.dkv.compute;

import io.dkv.raas.NodeRecord;
import org.agrona.CloseHelper;

import java.nio.file.Path;

/**
 * A store of one memory node and two compute nodes registered with one MetaServer, the setting in which compute nodes
 * answer CLUSTER as a cluster of both: the first (the lower id) serves slots 0-8191 in their replies, the second
 * 8192-16383. Ready once each lists both.
 */
final class TwoComputeNodes implements AutoCloseable
{
    private final String password;
    private final MetaCluster cluster;
    private ComputeNode first;
    private ComputeNode second;

    /**
     * @param dir      where the MetaServer keeps its state.
     * @param password what the compute nodes require ({@code --requirepass}), or null for none.
     */
    TwoComputeNodes(final Path dir, final String password) throws InterruptedException
    {
        this.password = password;
        cluster = new MetaCluster(dir);
        try
        {
            first = compute(firstId());
            second = compute(secondId());
            MetaCluster.await("each node lists both",
                () -> slotsListed(first.port()) == 2 && slotsListed(second.port()) == 2);
        }
        catch (final RuntimeException | InterruptedException | AssertionError ex)
        {
            close();
            throw ex;
        }
    }

    ComputeNode first()
    {
        return first;
    }

    ComputeNode second()
    {
        return second;
    }

    /** @return the first node's id: the lower, so that it serves the lower slots. */
    long firstId()
    {
        return cluster.base + 2;
    }

    long secondId()
    {
        return cluster.base + 3;
    }

    /** @return the port of the node whose range in CLUSTER SLOTS holds {@code slot}. */
    int portOfSlot(final int slot)
    {
        return slot < 8_192 ? first.port() : second.port();
    }

    /** @return how many nodes the node on {@code port} lists in CLUSTER SLOTS. */
    int slotsListed(final int port)
    {
        try (RawResp resp = new RawResp(port))
        {
            if (password != null)
            {
                resp.call("AUTH", password);
            }
            final String slots = resp.call("CLUSTER", "SLOTS");
            return Integer.parseInt(slots.substring(1, slots.indexOf('[')));
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException("CLUSTER SLOTS of port " + port, ex);
        }
    }

    /** @return another compute node of the same cluster; the caller closes it. */
    ComputeNode another(final long nodeId)
    {
        return compute(nodeId);
    }

    /** @return another compute node of the same cluster, its asynchronous commands as given; the caller closes it. */
    ComputeNode another(final long nodeId, final String asyncCommands)
    {
        return ComputeNode.start(context(nodeId).asyncCommands(asyncCommands));
    }

    private ComputeNode compute(final long nodeId)
    {
        return ComputeNode.start(context(nodeId));
    }

    private ComputeNodeContext context(final long nodeId)
    {
        return new ComputeNodeContext().port(0).bindAddress("127.0.0.1").ioThreads(1)
            .requirePass(password).raas(cluster.node(nodeId, NodeRecord.ROLE_COMPUTE), true);
    }

    /** Closes what was started, in the reverse order. */
    public void close()
    {
        CloseHelper.closeAll(second, first, cluster);
    }
}
