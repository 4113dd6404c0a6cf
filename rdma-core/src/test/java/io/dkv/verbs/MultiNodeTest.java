package io.dkv.verbs;

import org.junit.jupiter.api.AfterEach;

import java.util.ArrayList;
import java.util.List;

/**
 * Base of tests among any number of devices: each one {@link #node} opens is closed after the test.
 */
abstract class MultiNodeTest
{
    private final List<TestNode> nodes = new ArrayList<>();

    protected TestNode node(final VerbsContext context)
    {
        final TestNode node = TestNode.open(context);
        nodes.add(node);
        return node;
    }

    /** Close a node before the test ends. */
    protected void close(final TestNode node)
    {
        nodes.remove(node);
        node.close();
    }

    @AfterEach
    void closeNodes()
    {
        nodes.forEach(TestNode::close);
    }
}
