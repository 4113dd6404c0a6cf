package io.dkv.meta;

/**
 * The last authentic request id seen on one connection: a request must carry a higher one, so a
 * frame captured on the connection cannot be played into it again (within the timestamp window,
 * which stops replays later). Every sender numbers its requests upward on a connection.
 */
final class RequestSequence
{
    private boolean any;
    private long last;

    /**
     * @return null and remember it when the id is above the last, else why it is refused.
     */
    String accept(final long requestId)
    {
        // compared as a difference: ids start at random and may wrap
        if (any && requestId - last <= 0)
        {
            return "request id " + requestId + " is not above " + last +
                ", the last on this connection (a replayed frame)";
        }
        any = true;
        last = requestId;
        return null;
    }
}
