package io.dkv.load.check.nemesis;

/**
 * One fault a nemesis caused, for the result directory and the timeline.
 *
 * @param kind      what the log and the timeline call the fault: its kind's name.
 * @param target    the role (or the hosts) it hit.
 * @param start     nanoseconds since the history began, when it struck.
 * @param end       when it was healed (restarted, resumed, reconnected).
 * @param detail    what happened, e.g. a restart that failed.
 * @param lossesFrom  from when the fault may lose acknowledged writes: when it struck (kill-refilling's first kill
 *                  too: a write waiting out the first node holds the pool's durable epoch at its own until the
 *                  failover ends, so the second kill's cut may take back what was acknowledged since the first);
 *                  everysec's window runs from a while before it.
 * @param lossesUntil until when the fault may take back writes acknowledged under everysec where it loses every copy
 *                  of some keys: when its last SIGKILL of a memory node was sent (a fault that kills several at
 *                  moments of its own), or where the pool comes back at one cut while a member served
 *                  (kill-refilling), when every memory node served again: the members that served restart from
 *                  their disks, and the cut takes back what they acknowledged since (kv-memory-node/README.md); its
 *                  start for any other.
 */
public record NemesisEvent(
    String kind, String target, long start, long end, String detail, long lossesFrom, long lossesUntil)
{
    /** A fault whose kills, if any, were all sent as it struck. */
    public NemesisEvent(final String kind, final String target, final long start, final long end, final String detail)
    {
        this(kind, target, start, end, detail, start, start);
    }
}
