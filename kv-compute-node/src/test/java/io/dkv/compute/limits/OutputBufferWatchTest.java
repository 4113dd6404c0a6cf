package io.dkv.compute.limits;

import io.netty.channel.embedded.EmbeddedChannel;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A connection's output buffer limit as redis's checkClientOutputBufferLimits: the hard bound closes at once; the soft
 * bound only once a connection stayed above it for longer than its seconds on end, and falling below it starts the
 * period again; the pubsub class applies while the connection is subscribed, the normal class otherwise; a CONFIG SET
 * applies to connections already open.
 */
final class OutputBufferWatchTest
{
    private final CachedNanoClock clock = new CachedNanoClock();
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final ClientLimits limits = ClientLimits.unlimited();
    private final int[] closes = new int[2];
    private final OutputBufferWatch watch = new OutputBufferWatch(limits, clock, channel.eventLoop(), () -> 0,
        () -> closes[0]++, () -> closes[1]++);

    private void set(final String value)
    {
        final List<Runnable> changes = new ArrayList<>();
        assertNull(limits.parse(ClientLimits.OUTPUT_BUFFER_LIMIT, value.getBytes(StandardCharsets.US_ASCII), changes));
        changes.forEach(Runnable::run);
    }

    private void after(final long millis)
    {
        clock.advance(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    @Test
    void theHardBoundClosesAtOnceAndOnlyOnce()
    {
        set("normal 1000 0 0");
        assertFalse(watch.check(999));
        assertTrue(watch.check(1000), "redis closes at the bound itself");
        assertTrue(watch.check(10));
        assertEquals(1, closes[0]);
        assertEquals(1000, watch.bytesAtClose());
    }

    @Test
    void theSoftBoundClosesOnlyAfterItsSecondsAboveItOnEnd()
    {
        set("normal 0 100 2");
        assertFalse(watch.check(150), "the period starts");
        after(1_500);
        assertFalse(watch.check(150));
        assertFalse(watch.check(50), "below it: the period ends");
        after(1_000);
        assertFalse(watch.check(150), "a new period starts");
        after(2_000);
        assertFalse(watch.check(150), "two seconds on end are not more than two");
        after(1);
        assertTrue(watch.check(150));
        assertEquals(1, closes[0]);
    }

    @Test
    void aSubscribedConnectionIsHeldToThePubsubClass()
    {
        set("normal 1000 0 0 pubsub 100 0 0");
        assertFalse(watch.check(500));
        watch.subscribed(true);
        assertTrue(watch.check(500));
        assertEquals(1, closes[0]);
    }

    @Test
    void aConfigSetAppliesToConnectionsAlreadyOpen()
    {
        assertFalse(watch.check(1L << 40), "unlimited");
        set("normal 1mb 0 0");
        assertTrue(watch.check(1L << 20));
    }

    @Test
    void configSetIsCheckedAsRedisChecksIt()
    {
        final List<Runnable> changes = new ArrayList<>();
        assertEquals("Wrong number of arguments in buffer limit configuration.", parse("wrong number", changes));
        assertEquals("Invalid client class specified in buffer limit configuration.",
            parse("invalid_class 10mb 10mb 60", changes));
        assertEquals("Invalid client class specified in buffer limit configuration.",
            parse("master 10mb 10mb 60", changes));
        assertEquals("Error in hard, soft or soft_seconds setting in buffer limit configuration.",
            parse("normal 10mbs 10mb 60", changes));
        assertEquals("Error in hard, soft or soft_seconds setting in buffer limit configuration.",
            parse("pubsub 10mb 10mb 60s", changes));
        assertEquals("Error in hard, soft or soft_seconds setting in buffer limit configuration.",
            parse("normal 1mb 1mb 60 pubsub 10mb 10mb -1", changes), "all or none");
        assertTrue(changes.isEmpty());
        assertNull(parse("normal 1mb 2mb 60 replica 3mb 4mb 70 pubsub 5mb 6mb 80", changes));
        changes.forEach(Runnable::run);
        assertEquals("normal 1048576 2097152 60 slave 3145728 4194304 70 pubsub 5242880 6291456 80",
            limits.current().get(ClientLimits.OUTPUT_BUFFER_LIMIT));
        assertEquals("argument must be between 1048576 and 9223372036854775807 inclusive",
            limits.parse(ClientLimits.PROTO_MAX_BULK_LEN, "1000".getBytes(StandardCharsets.US_ASCII), changes));
    }

    private String parse(final String value, final List<Runnable> changes)
    {
        return limits.parse(ClientLimits.OUTPUT_BUFFER_LIMIT, value.getBytes(StandardCharsets.US_ASCII), changes);
    }

    @Test
    void theNodesBoundEvictsTheConnectionsHoldingMostUntilTheRestFit()
    {
        final List<Runnable> changes = new ArrayList<>();
        assertNull(limits.parse(ClientLimits.MAXMEMORY_CLIENTS, "800".getBytes(StandardCharsets.US_ASCII), changes));
        changes.forEach(Runnable::run);
        final ClientsMemory memory = new ClientsMemory(limits);
        final long[] pending = {600, 300, 500, 100};
        final int[] evicted = new int[pending.length];
        for (int i = 0; i < pending.length; i++)
        {
            final int which = i;
            memory.add(new OutputBufferWatch(limits, clock, channel.eventLoop(), () -> pending[which], () -> { },
                () -> evicted[which]++));
        }
        assertEquals(2, memory.scan(), "1,500 held over 800: 600 and then 500 go, 400 stay");
        assertEquals(1500, memory.lastTotal());
        assertEquals(List.of(1, 0, 1, 0), List.of(evicted[0], evicted[1], evicted[2], evicted[3]));
        assertEquals(0, memory.scan(), "the closed ones are not counted again");
        assertEquals(400, memory.lastTotal());
    }
}
