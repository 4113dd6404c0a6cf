package io.dkv.compute.command;

import io.dkv.client.MemoryFullException;
import io.dkv.raas.RaasException;

/**
 * What a RESP client is told of a store error: its text, with each transport failure it carries (a RaaS error's text:
 * the operation, the region, the queue pair, the completion status, as a memory node that stopped or restarted
 * leaves them) said in a user's words. The raw text stays with the exception, for the node's error log.
 */
public final class StoreError
{
    /** What a transport failure reads as to a client. */
    static final String UNREACHABLE = "the connection failed (the node stopped, restarted or cannot be reached now)";

    /** Redis's reply to a write refused at its memory limit, which clients and their tests match on. */
    public static final String OOM = "OOM command not allowed when used memory > 'maxmemory'.";

    private StoreError()
    {
    }

    /**
     * @return the error reply's text for a store failure: redis's {@link #OOM}, with dkv's figures after it, where a
     * memory node had no room for the write; else {@code ERR dkv store error: } and {@link #text}.
     */
    public static String reply(final Throwable failure)
    {
        final MemoryFullException full = MemoryFullException.in(failure);
        return full != null ? OOM + " (" + full.getMessage() + ")" : "ERR dkv store error: " + text(failure);
    }

    /** @return {@code failure}'s message, each RaaS error's text in its causes replaced by {@link #UNREACHABLE}. */
    public static String text(final Throwable failure)
    {
        String text = String.valueOf(failure.getMessage());
        int depth = 0;
        for (Throwable cause = failure; cause != null && depth < 16; cause = cause.getCause(), depth++)
        {
            if (cause instanceof RaasException && cause.getMessage() != null && !cause.getMessage().isEmpty())
            {
                text = text.replace(cause.getMessage(), UNREACHABLE);
            }
        }
        return text;
    }
}
