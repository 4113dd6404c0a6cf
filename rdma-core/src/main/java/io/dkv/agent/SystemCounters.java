package io.dkv.agent;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

/**
 * A role's counters (as Aeron's SystemCounters): one {@link AtomicCounter} per descriptor of the role's enum,
 * allocated once, when the role starts, in a {@link CountersManager} over a counters file ({@link CountersFile}) or
 * over memory no other process reads. Each is allocated with the role's type id and its descriptor's id as key, so
 * that a reader finds it by both.
 *
 * @param <E> the role's enum of counters.
 */
public final class SystemCounters<E extends Enum<E> & CounterDescriptor>
{
    private final AtomicCounter[] counters;

    /**
     * @param manager     where the counters are allocated; by the caller's thread, before any is written.
     * @param typeId      the role's type id, which each counter carries.
     * @param descriptors the role's counters, {@code values()} of its enum.
     */
    public SystemCounters(final CountersManager manager, final int typeId, final E[] descriptors)
    {
        counters = new AtomicCounter[descriptors.length];
        final UnsafeBuffer key = new UnsafeBuffer(new byte[Integer.BYTES]);
        for (final E descriptor : descriptors)
        {
            key.putInt(0, descriptor.id());
            final int id = manager.allocate(typeId, key, 0, Integer.BYTES,
                new UnsafeBuffer(descriptor.label().getBytes(java.nio.charset.StandardCharsets.US_ASCII)), 0,
                descriptor.label().length());
            counters[descriptor.ordinal()] = new AtomicCounter(manager.valuesBuffer(), id, manager);
        }
    }

    /**
     * @param maxCounters counters the memory holds.
     * @return a manager over memory of this process alone: for a role that keeps no counters file (an embedded driver
     * in a process that names none), whose counters are still read in-process (its figures, a compute node's metrics).
     */
    public static CountersManager inMemory(final int maxCounters)
    {
        return new CountersManager(
            new UnsafeBuffer(BufferUtil.allocateDirectAligned(CountersFileDescriptor.metadataLength(maxCounters), 64)),
            new UnsafeBuffer(BufferUtil.allocateDirectAligned(CountersFileDescriptor.valuesLength(maxCounters), 64)));
    }

    /** @return the counter of that descriptor. */
    public AtomicCounter get(final E descriptor)
    {
        return counters[descriptor.ordinal()];
    }
}
