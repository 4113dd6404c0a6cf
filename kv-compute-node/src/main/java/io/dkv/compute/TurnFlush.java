package io.dkv.compute;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SingleThreadEventLoop;
import io.netty.util.concurrent.EventExecutor;

import java.util.ArrayList;
import java.util.function.BooleanSupplier;

/**
 * An event loop's replies that wait for the PERSISTs its writes hold (appendfsync everysec): each connection's
 * replies are handed to its channel as they are made, and flushed once the loop's turn has ended and one
 * PERSIST_BLOCKS message per memory node has told the nodes of every write the turn ran, over all its connections.
 * Without it a turn sent one message per connection it served (at {@code redis-benchmark -c 50}, one per SET).
 * One per loop; used on that loop only.
 */
final class TurnFlush implements Runnable
{
    private final BooleanSupplier holds;
    private final Runnable send;
    private final ArrayList<ChannelHandlerContext> held = new ArrayList<>();
    private boolean armed;
    private long turns;
    private long repliesHeld;

    /**
     * @param holds whether the loop holds PERSISTs ({@code KvClient.holdsPersists}).
     * @param send  sends what the loop holds, one message per node ({@code KvClient.flushPersists}).
     */
    TurnFlush(final BooleanSupplier holds, final Runnable send)
    {
        this.holds = holds;
        this.send = send;
    }

    /** @return whether this loop holds PERSISTs: a reply written now must wait for them. */
    boolean holdsPersists()
    {
        return holds.getAsBoolean();
    }

    /** Send this loop's held PERSISTs now: before a write that cannot wait for the turn's end. */
    void persistsNow()
    {
        send.run();
    }

    /**
     * Flush {@code ctx}'s channel at the end of this turn, after the PERSISTs: its replies are written to it, not yet
     * flushed.
     */
    void flushAtTurnEnd(final ChannelHandlerContext ctx)
    {
        held.add(ctx);
        repliesHeld++;
        if (!armed)
        {
            armed = true;
            final EventExecutor executor = ctx.executor();
            if (executor instanceof SingleThreadEventLoop loop)
            {
                // run after the turn's I/O and every task it queued: the replies of every connection it served
                loop.executeAfterEventLoopIteration(this);
            }
            else
            {
                executor.execute(this);
            }
        }
    }

    public void run()
    {
        armed = false;
        turns++;
        send.run();
        for (int i = 0, size = held.size(); i < size; i++)
        {
            held.get(i).flush();
        }
        held.clear();
    }

    /** @return the turns that ended with a flush of held replies, and the replies held: their ratio is the batch. */
    long turns()
    {
        return turns;
    }

    long repliesHeld()
    {
        return repliesHeld;
    }
}
