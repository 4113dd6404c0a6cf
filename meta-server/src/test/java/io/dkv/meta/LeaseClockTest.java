package io.dkv.meta;

import io.dkv.raas.NodeRecord;
import io.dkv.verbs.PortAddress;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A lease runs out when the server has not heard its node renew for a lease's length by its monotonic clock: the
 * wall-clock expiry in the record is what nodes are told, and a step of the server's wall clock expires nothing.
 */
class LeaseClockTest
{
    private static final long LEASE_MS = 5_000;
    /** The wall clock of the records: far from the host's, so that nothing here could read it. */
    private static final long YEAR_2100_MILLIS = 4_102_444_800_000L;

    @Test
    void aLeaseRunsOutByTheMonotonicClockAloneWhateverTheWallClockSays(@TempDir final Path dir)
    {
        final CachedNanoClock nanoClock = new CachedNanoClock();
        try (MetaStore store = MetaStore.open(dir.resolve("rocksdb")))
        {
            final MetaState state = new MetaState(1, store, 1_000, nanoClock);
            state.load(YEAR_2100_MILLIS, LEASE_MS, 1);
            // granted an expiry the wall clock passed long ago, as a server whose wall clock was stepped forward
            state.putNode(memoryNode(7, 1), null);
            assertTrue(state.expire().isEmpty(), "the server heard it renew just now");

            nanoClock.advance(TimeUnit.MILLISECONDS.toNanos(LEASE_MS - 1));
            state.putNode(memoryNode(7, YEAR_2100_MILLIS + LEASE_MS), null);
            nanoClock.advance(TimeUnit.MILLISECONDS.toNanos(LEASE_MS));
            assertTrue(state.expire().isEmpty(), "renewed a lease's length ago, to the nanosecond");

            nanoClock.advance(1);
            final List<MetaState.Expired> expired = state.expire();
            assertEquals(1, expired.size());
            assertEquals(7, expired.getFirst().nodeId());
            assertTrue(state.expire().isEmpty(), "expired once");
        }
    }

    @Test
    void aRestartedServerGrantsEveryStoredNodeALeaseFromWhenItLoaded(@TempDir final Path dir)
    {
        final CachedNanoClock nanoClock = new CachedNanoClock();
        try (MetaStore store = MetaStore.open(dir.resolve("rocksdb")))
        {
            final MetaState first = new MetaState(1, store, 1_000, nanoClock);
            first.load(YEAR_2100_MILLIS, LEASE_MS, 1);
            first.putNode(memoryNode(7, YEAR_2100_MILLIS + LEASE_MS), null);
        }
        nanoClock.advance(TimeUnit.HOURS.toNanos(1));
        try (MetaStore store = MetaStore.open(dir.resolve("rocksdb")))
        {
            final MetaState restarted = new MetaState(1, store, 2_000, nanoClock);
            restarted.load(YEAR_2100_MILLIS, LEASE_MS, 1);
            assertTrue(restarted.expire().isEmpty(), "while the server was down its nodes could not renew");
            nanoClock.advance(TimeUnit.MILLISECONDS.toNanos(LEASE_MS) + 1);
            assertEquals(1, restarted.expire().size());
        }
    }

    private static NodeRecord memoryNode(final long id, final long leaseExpiry)
    {
        return new NodeRecord(id, NodeRecord.ROLE_MEMORY, PortAddress.shm(id), 1, 0x5eed, 1, leaseExpiry);
    }
}
