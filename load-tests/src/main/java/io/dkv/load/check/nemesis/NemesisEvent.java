package io.dkv.load.check.nemesis;

/**
 * One fault a nemesis caused, for the result directory and the timeline.
 *
 * @param kind      what the log and the timeline call the fault: its kind's name.
 * @param target    the role (or the hosts) it hit.
 * @param start     nanoseconds since the history began, when it struck.
 * @param end       when it was healed (restarted, resumed, reconnected).
 * @param detail    what happened, e.g. a restart that failed.
 * @param crashedAt when its last SIGKILL of a memory node was sent (a fault that kills several at moments of its
 *                  own: a refilling node's last serving replica); its start for any other.
 */
public record NemesisEvent(String kind, String target, long start, long end, String detail, long crashedAt)
{
    /** A fault whose kills, if any, were all sent as it struck. */
    public NemesisEvent(final String kind, final String target, final long start, final long end, final String detail)
    {
        this(kind, target, start, end, detail, start);
    }
}
