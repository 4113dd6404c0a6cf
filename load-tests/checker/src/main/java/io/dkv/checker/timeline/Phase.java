package io.dkv.checker.timeline;

/**
 * A phase of the run the history was recorded in (the heal after the faults, the final reads), drawn as a band of its
 * own colour under the faults' bands.
 *
 * @param name   what the run did then, e.g. "heal" or "final reads".
 * @param start  when it began, in the history's time (nanoseconds since the history began).
 * @param end    when it ended, in the same time.
 * @param detail what it found, e.g. how long every role took to come back; empty when there is nothing to add.
 */
public record Phase(String name, long start, long end, String detail)
{
}
