package io.dkv.raas.driver;

import io.dkv.raas.ServiceClass;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The standalone driver's isolation between attached clients, as the conductor sees it: what it reads of a
 * latency client is taken at once, what it reads of a bulk client is taken a weight's worth per duty cycle, in
 * order, whatever the bulk client had queued; without isolation everything is taken as read.
 */
class ClientSchedulerTest
{
    private final UnsafeBuffer ring = new UnsafeBuffer(new byte[256]);
    private final List<String> taken = new ArrayList<>();

    /** A command of the client: its type, and its number as its one word. */
    private boolean read(final ClientScheduler<String> scheduler, final ClientQueue<String> queue, final int number)
    {
        ring.putInt(40, number);
        return scheduler.defer(9, ring, 40, 4, queue);
    }

    private void take(final int type, final org.agrona.MutableDirectBuffer buffer, final int index, final int length,
        final String owner)
    {
        assertEquals(9, type);
        assertEquals(4, length);
        taken.add(owner + buffer.getInt(index));
    }

    @Test
    void aBulkClientsBacklogGoesAWeightPerCycleWhileALatencyClientsCommandsGoAtOnce()
    {
        final ClientScheduler<String> scheduler = new ClientScheduler<>(true, 64);
        final ClientQueue<String> bulk = new ClientQueue<>("bulk-", ServiceClass.BULK, 3);
        final ClientQueue<String> latency = new ClientQueue<>("latency-", ServiceClass.LATENCY, 3);
        scheduler.add(bulk);
        scheduler.add(latency);
        for (int i = 0; i < 100; i++)
        {
            assertTrue(read(scheduler, bulk, i), "a bulk command is kept");
        }
        assertFalse(read(scheduler, latency, 0), "a latency command is the caller's to take at once");

        assertEquals(1, scheduler.takeBulk(this::take));
        assertEquals(List.of("bulk-0", "bulk-1", "bulk-2"), taken, "three, the weight, in order");
        taken.clear();
        assertFalse(read(scheduler, latency, 1), "the next cycle's latency command goes before the backlog");
        int cycles = 1;
        while (scheduler.takeBulk(this::take) > 0)
        {
            cycles++;
        }
        assertEquals(34, cycles, "100 commands at 3 a cycle");
        for (int i = 0; i < 97; i++)
        {
            assertEquals("bulk-" + (i + 3), taken.get(i));
        }
    }

    @Test
    void bulkClientsShareEachCycleByWeight()
    {
        final ClientScheduler<String> scheduler = new ClientScheduler<>(true, 64);
        final ClientQueue<String> heavy = new ClientQueue<>("heavy-", ServiceClass.BULK, 4);
        final ClientQueue<String> light = new ClientQueue<>("light-", ServiceClass.BULK, 1);
        scheduler.add(heavy);
        scheduler.add(light);
        for (int i = 0; i < 20; i++)
        {
            read(scheduler, heavy, i);
            read(scheduler, light, i);
        }
        scheduler.takeBulk(this::take);
        scheduler.takeBulk(this::take);
        assertEquals(8, taken.stream().filter(t -> t.startsWith("heavy-")).count());
        assertEquals(2, taken.stream().filter(t -> t.startsWith("light-")).count());
    }

    @Test
    void withoutIsolationEveryCommandIsTakenAsRead()
    {
        final ClientScheduler<String> scheduler = new ClientScheduler<>(false, 64);
        final ClientQueue<String> bulk = new ClientQueue<>("bulk-", ServiceClass.BULK, 1);
        scheduler.add(bulk);
        assertFalse(read(scheduler, bulk, 0));
        assertEquals(0, scheduler.takeBulk(this::take));
    }

    @Test
    void aRemovedClientsBacklogIsNotTaken()
    {
        final ClientScheduler<String> scheduler = new ClientScheduler<>(true, 64);
        final ClientQueue<String> bulk = new ClientQueue<>("bulk-", ServiceClass.BULK, 1);
        scheduler.add(bulk);
        read(scheduler, bulk, 0);
        scheduler.remove(bulk);
        assertEquals(0, scheduler.takeBulk(this::take));
        assertTrue(taken.isEmpty());
    }
}
