package io.dkv.compute;

import org.agrona.CloseHelper;
import org.agrona.IoUtil;
import org.agrona.concurrent.SystemEpochClock;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A store and, beside it, Debian's redis-server for the tests that compare their replies, both started once for a
 * test class. Where redis-server is not installed the store still starts, and the tests that need redis are skipped.
 */
final class StoreBesideRedis implements BeforeAllCallback, AfterAllCallback
{
    private static final String NOT_INSTALLED = "redis-server is not installed (.ci/run installs it)";

    private final String[] redisOptions;
    private int heapChunks = TestStore.HEAP_CHUNKS;
    private TestStore store;
    private Path dir;
    private RedisServer redis;

    /** @param redisOptions further options of redis-server, e.g. {@code --cluster-enabled yes}. */
    StoreBesideRedis(final String... redisOptions)
    {
        this.redisOptions = redisOptions;
    }

    /** @return this, its store's memory node given {@code chunks} chunks of 4 MiB (strings of many MB need more). */
    StoreBesideRedis heapChunks(final int chunks)
    {
        this.heapChunks = chunks;
        return this;
    }

    public void beforeAll(final ExtensionContext context) throws Exception
    {
        store = new TestStore(new ComputeNodeContext(), SystemEpochClock.INSTANCE, 0, heapChunks);
        final String binary = RedisServer.binary("redis-server");
        if (binary == null)
        {
            System.out.println(context.getDisplayName() + ": " + NOT_INSTALLED + "; tests that need it are skipped");
            return;
        }
        // redis-server runs in this folder: its log, and a file an option names (nodes.conf), are kept there
        dir = Files.createTempDirectory("redis-server-");
        redis = RedisServer.start(binary, dir, redisOptions);
    }

    public void afterAll(final ExtensionContext context)
    {
        CloseHelper.closeAll(store, redis);
        if (dir != null)
        {
            IoUtil.delete(dir.toFile(), true);
        }
    }

    TestStore store()
    {
        return store;
    }

    boolean redisInstalled()
    {
        return redis != null;
    }

    /** @return redis-server; a test that calls this is skipped where it is not installed. */
    RedisServer redis()
    {
        Assumptions.assumeTrue(redis != null, NOT_INSTALLED);
        return redis;
    }
}
