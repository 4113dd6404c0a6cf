package io.dkv.compute;

import org.agrona.IoUtil;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@link TwoComputeNodes} for a test class ({@code @RegisterExtension static final}): started before its tests, in a
 * directory of their own, and closed after them.
 */
final class TwoComputeNodesExtension implements BeforeAllCallback, AfterAllCallback
{
    private Path dir;
    private TwoComputeNodes nodes;

    public void beforeAll(final ExtensionContext context) throws Exception
    {
        dir = Files.createTempDirectory("dkv-two-compute-nodes-");
        nodes = new TwoComputeNodes(dir, null);
    }

    public void afterAll(final ExtensionContext context)
    {
        if (nodes != null)
        {
            nodes.close();
        }
        if (dir != null)
        {
            IoUtil.delete(dir.toFile(), true);
        }
    }

    /** @return the two nodes, and what else the pool offers (a third node, their ids). */
    TwoComputeNodes nodes()
    {
        return nodes;
    }

    ComputeNode first()
    {
        return nodes.first();
    }

    ComputeNode second()
    {
        return nodes.second();
    }
}
