package io.dkv.checker.linear;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConfigurationCacheTest
{
    private static final int DETERMINATE = 200;
    private static final int INDETERMINATE = 20;

    @Test
    void aConfigurationIsAddedOnceAndFoundAfter()
    {
        final ConfigurationCache cache = new ConfigurationCache(1 << 28);
        cache.reset(DETERMINATE + INDETERMINATE);
        final SearchWalk walk = new SearchWalk(9, DETERMINATE, INDETERMINATE, 3, 6, 5, 2);
        final Set<List<Object>> seen = new HashSet<>();
        for (int step = 0; step < 100_000; step++)
        {
            walk.step();
            final int state = walk.random.nextInt(3);
            final boolean isNew = seen.add(List.of(walk.expected.clone(), state));

            assertEquals(isNew ? ConfigurationCache.ADDED : ConfigurationCache.PRESENT, cache.add(state, walk.set),
                "step " + step + ": " + walk.expected + " holding " + state);
        }
        assertEquals(seen.size(), cache.size());
        assertTrue(cache.size() > 20_000, "distinct configurations " + cache.size());
    }

    @Test
    void aCacheAtItsMemoryLimitIsFullAndForgetsOnReset()
    {
        final ConfigurationCache cache = new ConfigurationCache(64 * 1024);
        cache.reset(100);
        final LinearizedSet set = new LinearizedSet();
        set.reset(100, 0);
        int added = 0;
        int answer;
        while ((answer = cache.add(added, set)) == ConfigurationCache.ADDED)
        {
            added++;
        }

        assertEquals(ConfigurationCache.FULL, answer);
        assertTrue(cache.bytes() <= 64 * 1024, "bytes " + cache.bytes());
        assertTrue(added > 100, "added " + added);
        assertEquals(ConfigurationCache.PRESENT, cache.add(0, set));
        cache.reset(100);
        assertEquals(ConfigurationCache.ADDED, cache.add(0, set));
    }
}
