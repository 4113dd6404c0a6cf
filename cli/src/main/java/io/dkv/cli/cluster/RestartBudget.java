package io.dkv.cli.cluster;

import java.util.ArrayDeque;

/**
 * How often {@code dkv up --restart} restarts one role: a role that dies again and again at once (a port taken, a
 * data directory it cannot open, a MetaServer gone) would otherwise be restarted for ever, each start hiding the
 * last one's error in a new log.
 */
final class RestartBudget
{
    /** Deaths within {@link #WINDOW_MS} after which a role is left dead. */
    static final int DEATHS = 3;
    static final long WINDOW_MS = 60_000;

    private final ArrayDeque<Long> deaths = new ArrayDeque<>();

    /**
     * Count a death.
     *
     * @param nowMs when it died, by a clock that does not go back.
     * @return whether to start it again: not when this is the {@link #DEATHS}th death within {@link #WINDOW_MS}.
     */
    boolean died(final long nowMs)
    {
        deaths.addLast(nowMs);
        while (nowMs - deaths.peekFirst() >= WINDOW_MS)
        {
            deaths.removeFirst();
        }
        return deaths.size() < DEATHS;
    }
}
