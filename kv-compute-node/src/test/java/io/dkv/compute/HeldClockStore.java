package io.dkv.compute;

import org.agrona.CloseHelper;
import org.agrona.concurrent.CachedEpochClock;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;

/**
 * A store whose clock stands still unless a test moves it, started once for a test class, and a RESP connection of
 * each test's own, over which the keys the tests write are deleted first, so that a test finds none of them left by
 * the one before it.
 */
final class HeldClockStore implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback
{
    private final CachedEpochClock clock = new CachedEpochClock();
    private final String[] deleteFirst;
    private TestStore store;
    private RawResp resp;

    /** @param keys the keys the tests write, deleted before each test. */
    HeldClockStore(final String... keys)
    {
        deleteFirst = new String[keys.length + 1];
        deleteFirst[0] = "DEL";
        System.arraycopy(keys, 0, deleteFirst, 1, keys.length);
    }

    public void beforeAll(final ExtensionContext context)
    {
        store = TestStore.withClockHeldAt2100(clock);
    }

    public void afterAll(final ExtensionContext context)
    {
        CloseHelper.close(store);
    }

    public void beforeEach(final ExtensionContext context) throws IOException
    {
        resp = new RawResp(store.port());
        resp.call(deleteFirst);
    }

    public void afterEach(final ExtensionContext context)
    {
        CloseHelper.close(resp);
    }

    /** The clock the store's client and memory node judge expiry by, first held at 2100. */
    CachedEpochClock clock()
    {
        return clock;
    }

    int port()
    {
        return store.port();
    }

    /** @return the store's reply to a request on this test's connection. */
    String call(final String... args) throws IOException
    {
        return resp.call(args);
    }
}
