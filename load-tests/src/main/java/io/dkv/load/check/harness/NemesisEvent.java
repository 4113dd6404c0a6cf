package io.dkv.load.check.harness;

/**
 * One fault a nemesis caused, for the result directory and the timeline.
 *
 * @param kind   kill, pause or partition.
 * @param target the role (or the hosts) it hit.
 * @param start  nanoseconds since the history began, when it struck.
 * @param end    when it was healed (restarted, resumed, reconnected).
 * @param detail what happened, e.g. a restart that failed.
 */
public record NemesisEvent(String kind, String target, long start, long end, String detail)
{
}
