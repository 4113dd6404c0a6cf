package io.dkv.compute.command;

import io.dkv.compute.blocking.Waiter;
import io.dkv.compute.limits.OutputBufferWatch;
import io.dkv.compute.pubsub.Subscriber;
import io.dkv.compute.store.KeyStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * What a compute node keeps of one connection, and nothing of the data: its id, name, protocol (2 or 3), whether it
 * authenticated, whether it asked to be closed, its MULTI state (commands queued, keys watched and the versions read
 * when watched), the transaction its EXEC runs in, and a reply that another thread is making (a script's). Touched by
 * the connection's event loop thread only, or by the thread making its deferred reply while the connection waits.
 */
public final class Session
{
    static final int REPLIES_ON = 0;
    static final int REPLIES_OFF = 1;
    static final int REPLIES_SKIP_NEXT = 2;
    private final long id;
    private final AuthListener authListener;
    private boolean authenticated;
    private int protocol = 2;
    private byte[] name;
    private boolean closeAfterReply;
    private Object remote = "a peer";
    private int authFailures;
    private long holdReplyNanos;
    private MultiState multi;
    private KeyStore executing;
    private Thread executingThread;
    private boolean replaying;
    private StreamedReplies streams;
    private Object[] staged;
    private Channel outlet;
    private OutputBufferWatch outputWatch;
    private Subscriber subscriber;
    private Waiter blocked;
    private Consumer<ByteBuf> resumer;
    private List<Runnable> afterCommit;
    private int replies = REPLIES_ON;
    private boolean scripted;
    private CompletableFuture<ByteBuf> deferred;
    private CompletableFuture<?> round;
    /** Whether the request being run may go out asynchronously: set by the connection around the requests it may. */
    private boolean mayAwait;
    private boolean completionsCarry = true;
    private AsyncStep step;

    /** Told when a connection authenticates, so that the decoder lifts redis's limits for unauthenticated peers. */
    @FunctionalInterface
    public interface AuthListener
    {
        void authenticated();
    }

    /**
     * @param id            the connection's id, as CLIENT ID and HELLO give it.
     * @param authenticated true when no password is required.
     * @param authListener  told when the connection authenticates.
     */
    public Session(final long id, final boolean authenticated, final AuthListener authListener)
    {
        this.id = id;
        this.authenticated = authenticated;
        this.authListener = authListener;
    }

    /** @return where replies of strings in pieces go a piece at a time, or null (they go whole). */
    public StreamedReplies streams()
    {
        return streams;
    }

    /** @param streams where replies of strings in pieces go a piece at a time. */
    public void streams(final StreamedReplies streams)
    {
        this.streams = streams;
    }

    /** The request about to run has long arguments the decoder staged, at their indexes (null elsewhere). */
    public void staged(final Object[] staged)
    {
        this.staged = staged;
    }

    /** @return the staged long argument at {@code index}, now the caller's to publish or abandon; else null. */
    Object takeStaged(final int index)
    {
        if (staged == null || index >= staged.length)
        {
            return null;
        }
        final Object taken = staged[index];
        staged[index] = null;
        return taken;
    }

    /** @return true when the request about to run has a long argument staged that no command took yet. */
    boolean hasStaged()
    {
        if (staged != null)
        {
            for (final Object argument : staged)
            {
                if (argument != null)
                {
                    return true;
                }
            }
        }
        return false;
    }

    /** @return the staged arguments no command took (each to abandon), clearing them; null when none. */
    public Object[] untakenStaged()
    {
        final Object[] left = staged;
        staged = null;
        return left;
    }

    public long id()
    {
        return id;
    }

    public boolean authenticated()
    {
        return authenticated;
    }

    /** RESET where a password is required: the connection must authenticate again. */
    void deauthenticate()
    {
        authenticated = false;
    }

    void authenticate()
    {
        if (!authenticated)
        {
            authenticated = true;
            authListener.authenticated();
        }
    }

    /** @return 2 or 3, as HELLO chose. */
    public int protocol()
    {
        return protocol;
    }

    /** @param protocol 2 or 3: HELLO's, or a script's redis.setresp for the commands it calls. */
    public void protocol(final int protocol)
    {
        this.protocol = protocol;
        if (subscriber != null)
        {
            subscriber.protocol(protocol);
        }
    }

    /** @return the connection's channel, where messages published to its subscriptions go; null when it has none. */
    Channel outlet()
    {
        return outlet;
    }

    /** @param outlet the connection's channel. */
    public void outlet(final Channel outlet)
    {
        this.outlet = outlet;
    }

    /** @return the connection's pending replies against its output buffer limit; null where none applies. */
    OutputBufferWatch outputWatch()
    {
        return outputWatch;
    }

    /** @param outputWatch the connection's, which its subscriber's messages are checked against too. */
    public void outputWatch(final OutputBufferWatch outputWatch)
    {
        this.outputWatch = outputWatch;
    }

    /** @return the connection's blocked command, or null when it is not blocked. */
    public Waiter blocked()
    {
        return blocked;
    }

    /** @param waiter the command the connection is blocked on now; null once it is not. */
    public void block(final Waiter waiter)
    {
        this.blocked = waiter;
    }

    /** @return what takes a blocked command's reply and lets its connection go on; null where it cannot block. */
    Consumer<ByteBuf> resumer()
    {
        return resumer;
    }

    /** @param resumer what takes a blocked command's reply and lets its connection go on. */
    public void resumer(final Consumer<ByteBuf> resumer)
    {
        this.resumer = resumer;
    }

    /**
     * What a transaction's run does once it committed and not before (a signal to blocked connections, a keyspace
     * notification): a run that a conflict ends is run again, and what it deferred is dropped.
     */
    public void afterCommit(final Runnable action)
    {
        if (afterCommit == null)
        {
            afterCommit = new ArrayList<>();
        }
        afterCommit.add(action);
    }

    /** @return what the transaction that ended deferred, now the caller's to run or drop; null when nothing. */
    public List<Runnable> takeAfterCommit()
    {
        final List<Runnable> taken = afterCommit;
        afterCommit = null;
        return taken;
    }

    /** @return CLIENT REPLY's mode: {@link #REPLIES_ON}, {@link #REPLIES_OFF} or {@link #REPLIES_SKIP_NEXT}. */
    int replies()
    {
        return replies;
    }

    void replies(final int mode)
    {
        this.replies = mode;
    }

    /** @return true while every reply is written (CLIENT REPLY ON): pipelined reads may answer straight away. */
    public boolean repliesOn()
    {
        return replies == REPLIES_ON;
    }

    /** @return the connection as pub/sub sees it, made at its first (un)subscribe; null before. */
    public Subscriber subscriber()
    {
        return subscriber;
    }

    void subscriber(final Subscriber subscriber)
    {
        this.subscriber = subscriber;
    }

    byte[] name()
    {
        return name;
    }

    void name(final byte[] name)
    {
        this.name = name == null || name.length == 0 ? null : name;
    }

    /** @return the peer's address, as lines about it name it. */
    public Object remote()
    {
        return remote;
    }

    /** @param remote the peer's address. */
    public void remote(final Object remote)
    {
        this.remote = remote;
    }

    /** @return the connection's failed AUTHs so far, this one counted. */
    int authFailed()
    {
        return ++authFailures;
    }

    /** Hold the reply just written (and the connection's requests after it) this long. */
    void holdReply(final long nanos)
    {
        holdReplyNanos = nanos;
    }

    /** @return how long the connection is to hold its replies from now, once: 0 when not. */
    public long takeReplyHold()
    {
        final long nanos = holdReplyNanos;
        holdReplyNanos = 0;
        return nanos;
    }

    /** @return the connection's MULTI state, made at its first use: most connections never use it. */
    MultiState multi()
    {
        if (multi == null)
        {
            multi = new MultiState();
        }
        return multi;
    }

    /**
     * @return true for the client a script's redis.call commands run as (redis's CLIENT_SCRIPT flag): what SORT of a
     * set without an order looks at, to order it all the same, as redis does for scripts.
     */
    public boolean scripted()
    {
        return scripted;
    }

    /** Mark this the client a script's commands run as ({@link #scripted}). */
    public void scripted(final boolean scripted)
    {
        this.scripted = scripted;
    }

    /** @return true between MULTI and EXEC or DISCARD: commands are queued, not run. */
    public boolean inMulti()
    {
        return multi != null && multi.active();
    }

    /**
     * @return the store the connection's commands use now: EXEC's transaction while one runs on this thread, else
     * {@code base}.
     */
    public KeyStore store(final KeyStore base)
    {
        return executing() ? executing : base;
    }

    /**
     * @return true while an EXEC (or a script, or a replayed command) runs its commands in a transaction on this
     * thread. A store thread running another of the connection's requests meanwhile (one that was not replayed) runs
     * it alone: the transaction is the loop's.
     */
    public boolean executing()
    {
        return executing != null && executingThread == Thread.currentThread();
    }

    /**
     * @param transaction the store of the transaction an EXEC (or a script) runs its commands in, or null once it
     *                    ends.
     */
    public void executing(final KeyStore transaction)
    {
        this.executing = transaction;
        this.executingThread = transaction == null ? null : Thread.currentThread();
        this.replaying = false;
    }

    /**
     * @param transaction the store of a replayed run of one request ({@link ReplayedCommands}), or null once the run
     *                    ends: as {@link #executing(KeyStore)}, and where the command would go otherwise alone than in
     *                    EXEC (a string in pieces) it throws {@code NotReplayable}.
     */
    void replaying(final KeyStore transaction)
    {
        executing(transaction);
        this.replaying = transaction != null;
    }

    /** @return true while a replayed run of one request runs on this thread ({@link #replaying(KeyStore)}). */
    boolean replaying()
    {
        return replaying && executing();
    }

    /**
     * @param mayAwait whether the request about to run may send its store operation out asynchronously
     *                 ({@link #await}): the connection says so where it can hold the reply in order meanwhile.
     */
    public void mayAwait(final boolean mayAwait)
    {
        this.mayAwait = mayAwait;
    }

    /**
     * @param completionsCarry false where the store's requests wait on no wire (the shared-memory provider, whose reads
     *                         are copies made by the caller): a step then runs whole on a store thread, where a
     *                         replayed transaction carried by completions took 24 s for one SMEMBERS of 100,000
     *                         members, each completion waiting on the poller's idle strategy.
     */
    public void completionsCarry(final boolean completionsCarry)
    {
        this.completionsCarry = completionsCarry;
    }

    /** @return whether a step may be a replayed transaction carried by completions ({@link #completionsCarry}). */
    boolean completionsCarry()
    {
        return completionsCarry;
    }

    /**
     * @param base the store outside EXEC.
     * @return true when the request being run may send its store operation out asynchronously: the connection (a
     * channel's, whose loop posts what follows a completion) allows it, and the request is its own (not part of
     * EXEC's or a script's transaction, whose store is not {@code base}).
     */
    boolean mayAwait(final KeyStore base)
    {
        return mayAwait && outlet != null && !inMulti() && !executing() && !scripted && store(base) == base &&
            !StoreThreads.onStoreThread();
    }

    /**
     * The request just run sent its store operation out asynchronously: its reply is made by {@code finisher} on the
     * connection's event loop once {@code operation} completes. Only where {@link #mayAwait(KeyStore)} said so.
     *
     * @param key the key the operation reads or writes.
     */
    <T> void await(final CompletableFuture<T> operation, final AsyncStep.Finisher<? super T> finisher,
        final byte[] key)
    {
        step = new AsyncStep(operation, finisher, key);
    }

    /**
     * A step's command readied keys blocked connections wait on: the round serving them runs on a store thread, and
     * the connection writes nothing more and runs nothing more until it is done (the write is answered after the
     * waiters it woke, as redis answers it).
     */
    void roundOut(final CompletableFuture<?> round)
    {
        this.round = round;
    }

    /** @return the round the step just finished started ({@link #roundOut}), taken; null when none. */
    public CompletableFuture<?> takeRound()
    {
        final CompletableFuture<?> taken = round;
        round = null;
        return taken;
    }

    /** @return the step the request just run left, taken; null when it answered at once. */
    public AsyncStep takeStep()
    {
        final AsyncStep taken = step;
        step = null;
        return taken;
    }

    /** @return the step the request just run left, still the session's; null when none. */
    AsyncStep step()
    {
        return step;
    }

    /**
     * The request just run answers later: the connection writes nothing more and runs nothing more of its requests
     * until {@code reply} completes, then writes its bytes (which it releases) where the request's reply goes.
     */
    public void defer(final CompletableFuture<ByteBuf> reply)
    {
        this.deferred = reply;
    }

    /** The reply the request just run deferred is to be dropped when it comes (CLIENT REPLY OFF or SKIP). */
    void dropDeferredReply()
    {
        if (deferred != null)
        {
            deferred = deferred.thenApply(reply ->
            {
                reply.release();
                return Unpooled.EMPTY_BUFFER;
            });
        }
    }

    /** @return the reply the request just run deferred, once (null when it answered at once). */
    public CompletableFuture<ByteBuf> takeDeferred()
    {
        final CompletableFuture<ByteBuf> reply = deferred;
        deferred = null;
        return reply;
    }

    /** @return true once QUIT asked for the connection to be closed after its reply. */
    public boolean closeAfterReply()
    {
        return closeAfterReply;
    }

    void closeAfterReply(final boolean closeAfterReply)
    {
        this.closeAfterReply = closeAfterReply;
    }
}
