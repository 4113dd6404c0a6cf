package io.dkv.checker.timeline;

/**
 * A fault injected while the history was recorded (a nemesis's kill, pause or partition), drawn as a shaded band.
 *
 * @param kind   what was done, e.g. kill, pause or partition.
 * @param target what it hit, e.g. a process or a set of hosts.
 * @param start  when it struck, in the history's time (nanoseconds since the history began).
 * @param end    when it was healed (restarted, resumed, reconnected), in the same time.
 * @param detail more about it, e.g. a restart that failed; empty when there is nothing to add.
 */
public record Fault(String kind, String target, long start, long end, String detail)
{
}
