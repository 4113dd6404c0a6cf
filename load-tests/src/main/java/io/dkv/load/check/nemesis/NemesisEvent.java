package io.dkv.load.check.nemesis;

/**
 * One fault a nemesis caused, for the result directory and the timeline.
 *
 * @param kind   what the log and the timeline call the fault: its kind's name.
 * @param target the role (or the hosts) it hit.
 * @param start  nanoseconds since the history began, when it struck.
 * @param end    when it was healed (restarted, resumed, reconnected).
 * @param detail what happened, e.g. a restart that failed.
 */
public record NemesisEvent(String kind, String target, long start, long end, String detail)
{
}
