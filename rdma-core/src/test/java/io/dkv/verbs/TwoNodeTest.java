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

    /** Open both devices with the provider under test. */
    protected void open(final String provider)
    {
        a = TestNode.open(provider);
        b = TestNode.open(provider);
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
