package io.dkv.agent;

/**
 * A counter a role always has (as Aeron's SystemCounterDescriptor): its id, unique within the role and kept across
 * versions so that what watches it need not change, and the label a reader shows.
 */
public interface CounterDescriptor
{
    /** @return the counter's id within its role: the key it is allocated under. */
    int id();

    /** @return what the counter counts, as {@code --counters} prints it. */
    String label();
}
