package io.dkv.raas.meta;

import io.dkv.raas.RaasException;
import io.dkv.verbs.PortAddress;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A MetaServer link that failed is tried again once the directory's relink period passed on the directory's clock,
 * not the system's.
 */
class MetaServerLinkTest
{
    private static final long RELINK_NANOS = 250_000_000L;

    @Test
    void aFailedLinkIsDueAgainAfterTheRelinkPeriodOnTheDirectorysClock()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        // far from the system's nanoTime: a due time taken on the system's clock shows
        clock.update(-7_000_000_000_000_000L);
        final MetaServerLink link = new MetaServerLink(new MetaEndpoint(9, PortAddress.shm(5), 0x2001, 77), clock);
        assertTrue(link.isDue(clock.nanoTime()), "a link never tried is due at once");

        link.fail(new RaasException("MetaServer 9 did not answer"), RELINK_NANOS);
        assertFalse(link.isUp());
        assertEquals("MetaServer 9 did not answer", link.lastFailure());
        assertFalse(link.isDue(clock.nanoTime()));
        clock.advance(RELINK_NANOS - 1);
        assertFalse(link.isDue(clock.nanoTime()), "one nanosecond short of the relink period");
        clock.advance(1);
        assertTrue(link.isDue(clock.nanoTime()), "the relink period passed");
    }
}
