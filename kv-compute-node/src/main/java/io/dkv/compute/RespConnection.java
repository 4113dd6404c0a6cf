package io.dkv.compute;

import io.dkv.compute.command.AsyncStep;
import io.dkv.compute.command.CommandTable;
import io.dkv.compute.command.NodeStats;
import io.dkv.compute.command.OffloadedCommands;
import io.dkv.compute.command.PipelinedReads;
import io.dkv.compute.command.RateLimitedLog;
import io.dkv.compute.command.Session;
import io.dkv.compute.command.SlicedCommand;
import io.dkv.compute.command.StreamedReplies;
import io.dkv.compute.command.UnboundedCommands;
import io.dkv.compute.limits.ClientLimits;
import io.dkv.compute.limits.ClientsMemory;
import io.dkv.compute.limits.OutputBufferWatch;
import io.dkv.compute.metrics.LatencyRecorder;
import io.dkv.compute.resp.LongRequest;
import io.dkv.compute.resp.RespDecoder;
import io.dkv.compute.resp.RespProtocolError;
import io.dkv.compute.resp.RespReplies;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.util.concurrent.ScheduledFuture;
import org.agrona.concurrent.NanoClock;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One client connection, after the decoder: runs its requests in order on its event loop, the runs of GETs and MGETs
 * among those read together looked up together ({@link PipelinedReads}), writes their replies together (so a
 * pipeline goes out in few writes), closes it after a protocol error or QUIT, and after the partial-request deadline
 * when a peer began a request and stopped.
 *
 * <p>No connection can hold up another of its loop, nor make the node hold more than a bound for it:
 * <ul>
 * <li>Requests decoded wait in a queue and are run in turns of at most {@link #TURN_KEYS} keys; a connection with more
 * to run schedules its next turn, so that the loop serves its other connections' reads between turns. MGET, DEL and
 * EXISTS of many keys run a slice at a time ({@link SlicedCommand}) in the same turns.</li>
 * <li>Backpressure: while its replies are not taken (the channel is not writable: more than the high water mark is
 * pending), nothing more of a connection's is run and it does not read; it goes on once its peer has taken them. It
 * reads only while its queue is empty, so what it holds is what one read decoded.</li>
 * <li>A connection whose pending reply bytes pass its class's output limit (redis's client-output-buffer-limit: hard,
 * or soft for its seconds) is closed, counted and logged, and so is one the node evicts for all its connections'
 * replies (maxmemory-clients); a closed connection's queued requests are dropped, not run.</li>
 * <li>A failed AUTH holds the connection's replies and requests for a while (scheduled, the loop is not held).</li>
 * <li>A request whose reply another thread makes (a script, {@link Session#defer}) holds the connection's replies and
 * requests until it comes; the loop serves its other connections meanwhile.</li>
 * <li>Asked to drain ({@link #drain}), it stops reading, runs what it has read, and closes.</li>
 * </ul>
 *
 * <p>How many keys one lookup (a run of reads, a slice) takes adapts to the values' sizes so that one's replies are
 * about {@link #UNIT_TARGET_BYTES}: it starts at {@link #UNIT_KEYS_FIRST}, and a connection reading values of the
 * largest size takes them one at a time.
 *
 * <p>With asynchronous commands ({@link io.dkv.compute.ComputeNodeContext#asyncCommands}), a GET, SET or INCR sends
 * its store operation out and leaves an {@link AsyncStep}: the loop goes on with the connection's next requests while
 * they are GET, SET and INCR of other keys (at most {@link #STEPS_MAX} in flight, so a pipeline's writes go out
 * together as its reads do), and with other connections. Replies keep the requests' order: those made meanwhile wait
 * behind the steps before them, and a step's reply is made on this loop once its operation completed and every step
 * before it has answered. Anything else, or a key in flight, waits until the steps before it have answered.
 *
 * <p>Each request's duration, from its decoding to its reply's write, goes to its event loop's
 * {@link LatencyRecorder}: requests decoded from one read share a decoding time, so they are kept as runs (a time and
 * a count, a few per write) and recorded when their replies are written.
 */
final class RespConnection extends ChannelInboundHandlerAdapter
{
    /** Keys (a request without keys counts one) a connection runs in one turn of its loop at most. */
    static final int TURN_KEYS = 1024;
    /** Reply bytes a lookup is sized to give. */
    static final int UNIT_TARGET_BYTES = 1 << 20;
    /** Keys of a connection's first lookup at most, before it has seen how large its values are. */
    static final int UNIT_KEYS_FIRST = 128;
    /** Keys of a turn's budget a piece of a streamed string (512 KiB) costs: 8 pieces a turn. */
    private static final int PIECE_KEYS = TURN_KEYS / 8;
    /** Requests of a connection whose store operations are out at once, at most. */
    static final int STEPS_MAX = 64;
    /** Replies held before they are written in the middle of a turn, so that backpressure sees them. */
    private static final int WRITE_BYTES = 64 * 1024;

    private final CommandTable table;
    private final NodeStats stats;
    /** The node's, which the decoder stamps requests with too. */
    private final NanoClock clock;
    private final RespDecoder decoder;
    private final Session session;
    private final PipelinedReads reads;
    private final SlicedCommand sliced;
    private final RequestQueue queue = new RequestQueue();
    private final long partialTimeoutNanos;
    private final ClientLimits limits;
    private final ClientsMemory clientsMemory;
    private final RateLimitedLog outputLimitLog;
    /** Its pending replies against its class's output limit; made when it is added to its channel. */
    private OutputBufferWatch outputWatch;
    private final Runnable turn = this::scheduledTurn;
    private final Runnable resume = this::resumeAfterHold;
    private final boolean asyncCommands;
    /** Requests whose operations are out ({@link AsyncStep}) and replies made behind them (ByteBuf), in order. */
    private final ArrayDeque<Object> inFlight = new ArrayDeque<>();
    /** A completion asked the loop to finish steps, and it has not yet: completions of a burst wake it once. */
    private final AtomicBoolean stepsWake = new AtomicBoolean();
    /** The round of blocked connections a step's write woke, still running: nothing more goes out until it is done. */
    private CompletableFuture<?> roundOut;
    /** The request at the queue's head whose long arguments' writes are watched ({@link #longArgumentsArrived}). */
    private LongRequest awaitedLong;
    private final Runnable stepsDone = this::stepsDone;
    /** Where replies wait for the loop's held PERSISTs (appendfsync everysec); null where none are held. */
    private TurnFlush turnFlush;
    private ChannelHandlerContext ctx;
    private ByteBuf pending;
    private boolean closing;
    private boolean draining;
    private boolean closeRequested;
    private boolean turnScheduled;
    private boolean held;
    /** Inside {@link #process()}: a blocked command answered from within it is written, not processed again. */
    private boolean processing;
    private int unitKeys = UNIT_KEYS_FIRST;
    private ScheduledFuture<?> deadline;
    private long decodedAtArm;
    private LatencyRecorder latency;
    private long[] runDecodedNanos = new long[4];
    private int[] runRequests = new int[4];
    private int runs;

    RespConnection(final CommandTable table, final NodeStats stats, final RespDecoder decoder, final Session session,
        final long partialTimeoutMs)
    {
        this(table, stats, decoder, session, partialTimeoutMs, ClientLimits.unlimited(), null, null, false);
    }

    /**
     * @param limits         the node's client limits: the output buffer limits apply to this connection's replies.
     * @param clientsMemory  where the node sums its connections' pending replies; null: nowhere.
     * @param outputLimitLog where closes at the limit are logged; null for nowhere.
     * @param asyncCommands  whether GET, SET and INCR send their operations out and answer when they complete.
     */
    RespConnection(final CommandTable table, final NodeStats stats, final RespDecoder decoder, final Session session,
        final long partialTimeoutMs, final ClientLimits limits, final ClientsMemory clientsMemory,
        final RateLimitedLog outputLimitLog, final boolean asyncCommands)
    {
        this.asyncCommands = asyncCommands;
        this.table = table;
        this.stats = stats;
        this.clock = stats.nanoClock();
        this.decoder = decoder;
        this.session = session;
        this.reads = new PipelinedReads(table);
        this.sliced = new SlicedCommand(table);
        this.partialTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(partialTimeoutMs);
        this.limits = limits;
        this.clientsMemory = clientsMemory;
        this.outputLimitLog = outputLimitLog;
    }

    /** @param turnFlush the loop's: replies go out after the PERSISTs its writes hold. */
    void turnFlush(final TurnFlush turnFlush)
    {
        this.turnFlush = turnFlush;
    }

    public void handlerAdded(final ChannelHandlerContext ctx)
    {
        this.ctx = ctx;
        outputWatch = new OutputBufferWatch(limits, clock, ctx.executor(), this::outboundBytes,
            () -> closeAtLimit(false), () -> closeAtLimit(true));
        session.outputWatch(outputWatch);
        if (clientsMemory != null)
        {
            clientsMemory.add(outputWatch);
            ctx.channel().closeFuture().addListener(future -> clientsMemory.remove(outputWatch));
        }
        session.resumer(this::unblocked);
        session.completionsCarry(asyncCommands);
        if (asyncCommands && session.streams() != null)
        {
            // the loop waits on no READ of a piece either: each is read ahead on a store thread
            session.streams().readAhead(table.background(), this::stepCompleted);
        }
        // a long argument's pieces are written on store threads: once they drained, the connection reads again
        decoder.onLongBulksDrained(this::stepCompleted);
        latency = stats.latency().recorderFor(ctx.channel().eventLoop());
    }

    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        if (!closing)
        {
            queue.add(msg, decoder.decodedAtNanos());
        }
    }

    public void channelReadComplete(final ChannelHandlerContext ctx)
    {
        process();
    }

    public void channelWritabilityChanged(final ChannelHandlerContext ctx)
    {
        if (ctx.channel().isWritable())
        {
            process();
        }
        ctx.fireChannelWritabilityChanged();
    }

    /**
     * Stop reading, run what was read, then close; called on the connection's loop when the node closes.
     */
    void drain()
    {
        draining = true;
        if (session.blocked() != null)
        {
            // answered as if its timeout came, then drained as the rest
            table.endBlocked(session);
        }
        process();
    }

    /** The command the connection was blocked on was answered: its reply goes out and the next requests run. */
    private void unblocked(final ByteBuf reply)
    {
        session.block(null);
        if (ctx.channel().isActive())
        {
            pendingBuffer().writeBytes(reply);
        }
        reply.release();
        if (!processing)
        {
            process();
        }
    }

    /** On a completion's thread: the loop finishes the steps whose operations completed. */
    private void stepCompleted()
    {
        if (stepsWake.compareAndSet(false, true))
        {
            ctx.executor().execute(stepsDone);
        }
    }

    /**
     * @return true once every long argument of {@code request} is written into its pieces (or failed); else its
     * completions are watched, once per request, to resume the connection.
     */
    private boolean longArgumentsArrived(final LongRequest request)
    {
        final Runnable watch = awaitedLong == request ? null : this::stepCompleted;
        final boolean arrived = CommandTable.stagedArrived(request, watch);
        awaitedLong = arrived ? null : request;
        return arrived;
    }

    private void stepsDone()
    {
        stepsWake.set(false);
        if (!processing)
        {
            process();
        }
    }

    private void scheduledTurn()
    {
        turnScheduled = false;
        process();
    }

    private void resumeAfterHold()
    {
        held = false;
        process();
    }

    /**
     * One turn: run queued requests (or the slices of one) while the peer takes the replies, up to the turn's keys,
     * then write the replies and choose whether to read on.
     */
    private void process()
    {
        if (held || ctx == null || processing)
        {
            return;
        }
        processing = true;
        try
        {
            processTurn();
        }
        finally
        {
            processing = false;
        }
    }

    private void processTurn()
    {
        if (roundOut != null)
        {
            if (!roundOut.isDone())
            {
                return;
            }
            roundOut = null;
        }
        if (session.blocked() != null)
        {
            // what it sends meanwhile waits; with that queued it stops reading, as redis holds a blocked client's
            readInterest();
            return;
        }
        int budget = TURN_KEYS;
        while (!closing && ctx.channel().isActive() && ctx.channel().isWritable())
        {
            if (budget <= 0)
            {
                scheduleTurn();
                break;
            }
            final StreamedReplies streams = session.streams();
            if (streams != null && streams.active())
            {
                if (streams.next(pendingBuffer()) < 0)
                {
                    // part of a string went out and it changed under the reply: no reply mends that
                    closing = true;
                    break;
                }
                if (streams.waiting())
                {
                    // the next piece is on its way; its arrival resumes the connection
                    break;
                }
                budget -= PIECE_KEYS;
                writeIfLarge();
                continue;
            }
            if (sliced.active())
            {
                final int before = pendingBuffer().writerIndex();
                final int keys = sliced.next(session, pending, Math.min(unitKeys, budget));
                if (keys < 0)
                {
                    // part of an array went out and a store error came: no reply mends that
                    closing = true;
                    break;
                }
                adapt(keys, pending.writerIndex() - before);
                budget -= keys;
                writeIfLarge();
                continue;
            }
            if (!inFlight.isEmpty())
            {
                budget -= finishSteps();
                if (roundOut != null)
                {
                    // its reply and what follows wait for the round of the waiters it woke
                    return;
                }
                if (session.blocked() != null)
                {
                    if (!draining)
                    {
                        // a blocking command's first try took nothing: its reply comes when it is served
                        break;
                    }
                    // blocked as the node drains: answered as if its timeout came, then drained as the rest
                    table.endBlocked(session);
                }
                if (streaming())
                {
                    // a step's reply marked a string to stream: its pieces go out before what follows it
                    writeIfLarge();
                    continue;
                }
                if (!inFlight.isEmpty())
                {
                    if (queue.isEmpty() || !(queue.peek() instanceof byte[][] next) || !joinsSteps(next))
                    {
                        // the next request waits for the steps before it; their completions resume the connection
                        break;
                    }
                    decoded(queue.headNanos());
                    queue.poll();
                    budget--;
                    runBeside(next);
                    continue;
                }
            }
            if (queue.isEmpty())
            {
                break;
            }
            if (queue.peek() instanceof LongRequest waiting && !longArgumentsArrived(waiting))
            {
                // its long arguments' last pieces are being written; their completions resume the connection
                break;
            }
            final long decodedAt = queue.headNanos();
            final Object msg = queue.poll();
            if (msg instanceof byte[][] args)
            {
                decoded(decodedAt);
                final int from = mark();
                final boolean stepping = asyncCommands && AsyncStep.shaped(args) && session.repliesOn();
                if (session.repliesOn() && !stepping && reads.offer(session, args, pendingBuffer(), unitKeys))
                {
                    settle(from);
                    budget -= args.length - 1;
                    if (!reads.holding())
                    {
                        adapt(reads.lastRunKeys(), reads.lastRunBytes());
                    }
                    writeIfLarge();
                    continue;
                }
                runReads();
                final int ranFrom = mark();
                if (stepping)
                {
                    budget--;
                    ranAsStep(args, true);
                    writeIfLarge();
                    continue;
                }
                if (!sliced.start(session, args, pending))
                {
                    budget--;
                    // MSET, MSETNX, DEL and the collections' commands run on a store thread when they may: a step;
                    // one whose work grows with the data does so even where requests run on their loop
                    if (ranAsStep(args, (asyncCommands || UnboundedCommands.unbounded(args)) && session.repliesOn()))
                    {
                        continue;
                    }
                    final CompletableFuture<ByteBuf> deferred = session.takeDeferred();
                    if (deferred != null)
                    {
                        awaitReply(deferred);
                        return;
                    }
                    settle(ranFrom);
                    closing = session.closeAfterReply();
                    final long hold = session.takeReplyHold();
                    if (hold > 0)
                    {
                        hold(hold);
                        return;
                    }
                    if (session.blocked() != null)
                    {
                        // the replies before it go out now; its own when it is served, times out or is unblocked
                        break;
                    }
                }
            }
            else if (msg instanceof LongRequest request)
            {
                decoded(decodedAt);
                runReads();
                final int from = mark();
                budget--;
                // SET and its kin of a long value publish it on a store thread where they may: a step
                if (ranAsStep(request, asyncCommands && session.repliesOn()))
                {
                    continue;
                }
                settle(from);
                closing = session.closeAfterReply();
            }
            else if (msg instanceof RespProtocolError error)
            {
                runReads();
                stats.protocolError();
                RespReplies.error(pendingBuffer(), error.message());
                closing = true;
            }
            writeIfLarge();
        }
        if (ctx.channel().isActive())
        {
            runReads();
            write(true);
            readInterest();
            if (!closing && session.streams() != null && session.streams().active() && !session.streams().waiting() &&
                ctx.channel().isWritable())
            {
                // the reads run last marked a string: its pieces go out in the turns that follow
                scheduleTurn();
            }
        }
    }

    /**
     * Run a request (its arguments, or a {@link LongRequest}), letting it leave a step where {@code mayAwait}.
     *
     * @return true when it left one, now in flight; false when it answered into the pending replies.
     */
    private boolean ranAsStep(final Object request, final boolean mayAwait)
    {
        session.mayAwait(mayAwait);
        try
        {
            if (request instanceof LongRequest longRequest)
            {
                table.executeLong(session, longRequest, pendingBuffer());
            }
            else
            {
                table.execute(session, (byte[][])request, pendingBuffer());
            }
        }
        finally
        {
            session.mayAwait(false);
        }
        final AsyncStep step = session.takeStep();
        if (step == null)
        {
            return false;
        }
        inFlight.add(step);
        step.operation().whenComplete((result, failure) -> stepCompleted());
        return true;
    }

    /**
     * @return true when {@code args} may run while steps are in flight: a step's shape or a one-key command of the
     * collection types, on a key none of them has.
     */
    private boolean joinsSteps(final byte[][] args)
    {
        if (inFlight.size() >= STEPS_MAX || !(AsyncStep.shaped(args) || OffloadedCommands.oneKey(args)) ||
            !session.repliesOn() || session.inMulti())
        {
            return false;
        }
        for (final Object entry : inFlight)
        {
            // a step of several keys (null) holds back everything after it
            if (entry instanceof AsyncStep step && (step.key() == null || Arrays.equals(step.key(), args[1])))
            {
                return false;
            }
        }
        return true;
    }

    /** Run a request behind steps in flight: it leaves a step of its own, or a reply that waits behind theirs. */
    private void runBeside(final byte[][] args)
    {
        final ByteBuf reply = ctx.alloc().ioBuffer();
        session.mayAwait(asyncCommands || UnboundedCommands.unbounded(args));
        try
        {
            table.execute(session, args, reply);
        }
        finally
        {
            session.mayAwait(false);
        }
        final AsyncStep step = session.takeStep();
        if (step == null)
        {
            inFlight.add(reply);
            return;
        }
        reply.release();
        inFlight.add(step);
        step.operation().whenComplete((result, failure) -> stepCompleted());
    }

    /**
     * Answer, in order, the steps whose operations completed and the replies behind them, up to the first step still
     * out (or one whose reply is a string to stream).
     *
     * @return the steps answered.
     */
    private int finishSteps()
    {
        int finished = 0;
        while (!inFlight.isEmpty())
        {
            final Object head = inFlight.peekFirst();
            if (head instanceof ByteBuf reply)
            {
                inFlight.pollFirst();
                pendingBuffer().writeBytes(reply);
                reply.release();
                continue;
            }
            final AsyncStep step = (AsyncStep)head;
            if (!step.operation().isDone())
            {
                break;
            }
            inFlight.pollFirst();
            final int from = mark();
            table.finish(session, step, pendingBuffer());
            settle(from);
            finished++;
            final CompletableFuture<?> round = session.takeRound();
            if (round != null)
            {
                roundOut = round;
                round.whenComplete((result, failure) -> stepCompleted());
                break;
            }
            if (streaming() || session.blocked() != null)
            {
                break;
            }
        }
        return finished;
    }

    private boolean streaming()
    {
        final StreamedReplies streams = session.streams();
        return streams != null && streams.active();
    }

    /** A failed AUTH: its reply and what follows wait {@code nanos}; the loop serves others meanwhile. */
    private void hold(final long nanos)
    {
        held = true;
        ctx.channel().config().setAutoRead(false);
        ctx.executor().schedule(resume, nanos, TimeUnit.NANOSECONDS);
    }

    /** A request whose reply another thread makes: nothing more of the connection's runs or is read until it comes. */
    private void awaitReply(final CompletableFuture<ByteBuf> reply)
    {
        held = true;
        ctx.channel().config().setAutoRead(false);
        reply.whenComplete((bytes, failure) -> ctx.executor().execute(() -> replied(bytes, failure)));
    }

    private void replied(final ByteBuf bytes, final Throwable failure)
    {
        held = false;
        if (closing || !ctx.channel().isActive())
        {
            if (bytes != null)
            {
                bytes.release();
            }
            return;
        }
        if (failure != null)
        {
            RespReplies.error(pendingBuffer(), "ERR dkv error while answering: " + failure);
        }
        else
        {
            pendingBuffer().writeBytes(bytes);
            bytes.release();
        }
        process();
    }

    private void scheduleTurn()
    {
        if (!turnScheduled)
        {
            // scheduled rather than executed: the loop's I/O runs before its next batch of scheduled tasks, while a
            // task executed from a task would run in the same batch, ahead of every other connection's reads
            turnScheduled = true;
            ctx.executor().schedule(turn, 0, TimeUnit.NANOSECONDS);
        }
    }

    /** Read only with nothing left to run and the replies taken; close once draining with nothing left. */
    private void readInterest()
    {
        final boolean idle = queue.isEmpty() && inFlight.isEmpty() && !sliced.active() && !reads.holding() &&
            (session.streams() == null || !session.streams().active());
        if (closing || draining && idle)
        {
            if (!closeRequested)
            {
                // once what was written before has gone: the last reply (QUIT's, a protocol error's) reaches the peer
                closeRequested = true;
                ctx.channel().config().setAutoRead(false);
                ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            }
            return;
        }
        // a long argument's pieces written more slowly than they arrive: its bytes wait in the socket, not here
        final boolean read = idle && !draining && ctx.channel().isWritable() && !decoder.longBulksBacklogged();
        if (ctx.channel().config().isAutoRead() != read)
        {
            ctx.channel().config().setAutoRead(read);
        }
        if (read)
        {
            watchPartial();
        }
        else if (deadline != null)
        {
            // a peer whose half request waits because the node stopped reading is not stalled
            deadline.cancel(false);
            deadline = null;
        }
    }

    private ByteBuf pendingBuffer()
    {
        if (pending == null)
        {
            pending = ctx.alloc().ioBuffer();
        }
        return pending;
    }

    private void runReads()
    {
        if (reads.holding())
        {
            final int from = mark();
            reads.run(session, pendingBuffer());
            settle(from);
            adapt(reads.lastRunKeys(), reads.lastRunBytes());
        }
    }

    /** A reply marked a string to stream: what follows it in the replies waits behind it. */
    private void settle()
    {
        settle(pending == null ? 0 : pending.writerIndex());
    }

    /** As {@link #settle()}, the replies written from {@code from} on being those of requests just run. */
    private void settle(final int from)
    {
        final StreamedReplies streams = session.streams();
        if (streams != null && (streams.marked() || streams.active()))
        {
            streams.settle(pendingBuffer(), from);
        }
    }

    private int mark()
    {
        return pendingBuffer().writerIndex();
    }

    /** The next lookup's keys, from the last one's: as many as give about {@link #UNIT_TARGET_BYTES} of replies. */
    private void adapt(final int keys, final int bytes)
    {
        if (keys > 0)
        {
            final long fit = (long)keys * UNIT_TARGET_BYTES / Math.max(1, bytes);
            unitKeys = (int)Math.max(1, Math.min(PipelinedReads.MAX_KEYS, fit));
        }
    }

    private void writeIfLarge()
    {
        if (pending != null && pending.readableBytes() >= WRITE_BYTES && !reads.holding())
        {
            write(false);
        }
    }

    /**
     * Hand the replies held to the channel (flushed at the end of a turn), then check the bytes pending against the
     * output limit.
     */
    private void write(final boolean flush)
    {
        settle();
        final ByteBuf out = pending;
        pending = null;
        if (runs > 0 && !sliced.active() && !reads.holding() && inFlight.isEmpty())
        {
            written(clock.nanoTime());
        }
        if (out != null && out.isReadable())
        {
            if (!flush && turnFlush != null && turnFlush.holdsPersists())
            {
                // a large write: whatever flushes the channel next, its writes' nodes were told first
                turnFlush.persistsNow();
            }
            ctx.write(out).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
            checkOutputLimit();
        }
        else if (out != null)
        {
            out.release();
        }
        if (flush)
        {
            // no write's answer leaves before its memory nodes were told of it (appendfsync everysec): the PERSISTs
            // of every connection the turn served go in one message per node at its end, then their replies; a
            // subscriber's at once, as messages pushed to it from other loops must not overtake its replies
            if (turnFlush != null && turnFlush.holdsPersists())
            {
                if (session.subscriber() == null && !closing)
                {
                    turnFlush.flushAtTurnEnd(ctx);
                    return;
                }
                turnFlush.persistsNow();
            }
            ctx.flush();
        }
    }

    private void checkOutputLimit()
    {
        if (!closing)
        {
            outputWatch.check();
        }
    }

    /** @return the reply bytes its channel holds, not yet taken by its peer; on any thread. */
    private long outboundBytes()
    {
        final ChannelOutboundBuffer outbound = ctx.channel().unsafe().outboundBuffer();
        return outbound == null ? 0 : outbound.totalPendingWriteBytes();
    }

    /**
     * Close at its output limit, or for the node's clients' memory, as redis frees such a client: its queued requests
     * dropped, no more of its replies written. On its loop.
     *
     * @param evicted closed for the node's bound on all connections' replies (maxmemory-clients), not its own limit.
     */
    private void closeAtLimit(final boolean evicted)
    {
        if (!ctx.channel().isOpen())
        {
            return;
        }
        closing = true;
        final long pendingBytes = outputWatch.bytesAtClose();
        final boolean subscribed = session.subscriber() != null && session.subscriber().subscribed();
        final String what;
        if (evicted)
        {
            stats.clientEvicted();
            what = pendingBytes + " reply bytes pending while the node's connections held more than " +
                "maxmemory-clients (" + limits.clientsMemory() + "); " + stats.clientsEvicted() + " evicted so far";
        }
        else
        {
            stats.outputLimitClosed();
            what = pendingBytes + " reply bytes pending, over the " + (subscribed ? "pubsub" : "normal") +
                " client-output-buffer-limit " + limits.output(subscribed) + "; " + stats.outputLimitCloses() +
                " closed so far";
        }
        if (outputLimitLog != null)
        {
            outputLimitLog.event(ctx.channel().remoteAddress(), what);
        }
        dropQueued();
        ctx.close();
    }

    private void dropQueued()
    {
        while (!queue.isEmpty())
        {
            if (queue.poll() instanceof LongRequest request)
            {
                // the pieces its long arguments were written into are nobody's
                table.abandon(request);
            }
        }
        // steps still out complete into nothing: their replies have nobody to go to
        for (final Object entry : inFlight)
        {
            if (entry instanceof ByteBuf reply)
            {
                reply.release();
            }
        }
        inFlight.clear();
        sliced.abandon();
        if (session.streams() != null)
        {
            session.streams().abandon();
        }
    }

    /** A request decoded at {@code nanos}: one more of the last run, or the first of a new one. */
    private void decoded(final long nanos)
    {
        if (runs > 0 && runDecodedNanos[runs - 1] == nanos)
        {
            runRequests[runs - 1]++;
            return;
        }
        if (runs == runDecodedNanos.length)
        {
            // a few reads between two writes: the arrays grow rarely, to the most a connection has seen
            runDecodedNanos = Arrays.copyOf(runDecodedNanos, runs * 2);
            runRequests = Arrays.copyOf(runRequests, runs * 2);
        }
        runDecodedNanos[runs] = nanos;
        runRequests[runs] = 1;
        runs++;
    }

    /** The replies of the requests held are written now. */
    private void written(final long nanos)
    {
        for (int i = 0; i < runs; i++)
        {
            latency.record(runDecodedNanos[i], runRequests[i], nanos);
        }
        runs = 0;
    }

    /** A request begun and not finished arms the deadline; one that completes (or none begun) disarms it. */
    private void watchPartial()
    {
        if (!decoder.partial())
        {
            if (deadline != null)
            {
                deadline.cancel(false);
                deadline = null;
            }
            return;
        }
        if (deadline == null)
        {
            decodedAtArm = decoder.progress();
            deadline = ctx.executor().schedule(this::expire, partialTimeoutNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** A peer that is still sending requests gets a new deadline for the one under way; a stalled one is closed. */
    private void expire()
    {
        deadline = null;
        if (!decoder.partial() || !ctx.channel().config().isAutoRead())
        {
            return;
        }
        if (decoder.progress() != decodedAtArm)
        {
            watchPartial();
            return;
        }
        closing = true;
        ctx.close();
    }

    public void channelInactive(final ChannelHandlerContext ctx)
    {
        closing = true;
        if (deadline != null)
        {
            deadline.cancel(false);
        }
        // its blocked command takes nothing now, and its subscriptions end on every node told of them
        table.connectionClosed(session);
        // what the peer asked for and was not run is dropped: nobody is there to read its replies
        dropQueued();
        if (pending != null)
        {
            pending.release();
            pending = null;
        }
        runs = 0;
        ctx.fireChannelInactive();
    }

    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        // a reset by the peer or a failed write: the connection is gone, the node is not
        ctx.close();
    }
}
