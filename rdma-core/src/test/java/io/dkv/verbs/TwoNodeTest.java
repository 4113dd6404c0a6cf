package io.dkv.verbs;

import org.junit.jupiter.api.AfterEach;

/**
 * Base of tests between two devices: {@link #a} initiates, {@link #b} responds; both are closed
 * after each test.
 */
abstract class TwoNodeTest
{
    protected TestNode a;
    protected TestNode b;
    /** Polls the completion queues of both. */
    protected Completions completions;

    /** Open both devices with the provider under test. */
    protected void open(final String provider)
    {
        open(TestNode.context(provider), TestNode.context(provider));
    }

    protected void open(final VerbsContext aContext, final VerbsContext bContext)
    {
        a = TestNode.open(aContext);
        b = TestNode.open(bContext);
        completions = new Completions(a.cq, b.cq);
    }

    @AfterEach
    void closeNodes()
    {
        if (a != null)
        {
            a.close();
        }
        if (b != null)
        {
            b.close();
        }
    }
}
