package io.dkv.compute.command;

import io.dkv.client.KvClient;

import io.dkv.client.WrongKindException;
import io.dkv.client.pieces.PiecedString;
import io.dkv.client.pieces.PiecedStrings;
import io.dkv.client.txn.ReadsNeeded;
import io.dkv.compute.blocking.Waiters;
import io.dkv.compute.resp.LongRequest;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.script.CommandRules;
import io.dkv.compute.script.ScriptCommands;
import io.dkv.compute.store.ClientKeyStore;
import io.dkv.compute.store.KeyStore;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.ReservedKeys;
import io.dkv.format.ValueKind;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * Finds a request's command and runs it, refusing it first as redis-server 7 does and in its order: an unknown command
 * or subcommand, then a wrong number of arguments, then a connection that has not authenticated. Inside MULTI it
 * queues what it does not refuse, for EXEC ({@link TransactionCommands}).
 */
public final class CommandTable
{
    /**
     * Commands redis never queues inside MULTI (its no-multi flag, in 7.0: SAVE, SHUTDOWN, SYNC, PSYNC), by their
     * arity, which redis checks first: inside MULTI they get redis's errors rather than this node's.
     */
    private static final Map<String, Integer> NO_MULTI = Map.of("save", 1, "shutdown", -1, "sync", 1, "psync", -3);

    private final Map<String, CommandSpec> commands = new HashMap<>();
    private final CommandEnvironment environment;
    private final PiecedStrings pieced;
    private final KeyspaceEvents keyspaceEvents;
    private final ConfigKnobs knobs = new ConfigKnobs();
    private final ScriptCommands scripts;
    private final StoreThreads storeThreads;
    private final ReplayedCommands replayed;
    private final KeyStore store;

    public CommandTable(final CommandEnvironment environment)
    {
        this.environment = environment;
        this.storeThreads = new StoreThreads(environment.stats());
        environment.waiters().roundsOn(storeThreads::execute);
        final CarriedTransactions severalKeys = new CarriedTransactions(StringCommands.MAX_CARRIED_TRANSACTIONS);
        this.replayed = new ReplayedCommands(storeThreads, severalKeys);
        this.pieced = new PiecedStrings(environment.client());
        this.keyspaceEvents = new KeyspaceEvents(environment.pubsub());
        this.store = new ClientKeyStore(environment.client());
        add(new ConnectionCommands(environment, store, storeThreads).commands());
        final LongStrings longStrings = new LongStrings(environment.client());
        final LongStringWrites longWrites = new LongStringWrites(environment.client(), longStrings);
        final LongStringBits longBits = new LongStringBits(environment.client(), longStrings);
        add(new StringCommands(store, longStrings, longWrites, storeThreads, severalKeys).commands());
        add(new SetCommand(store, longWrites, storeThreads).commands());
        add(new CounterCommands(store).commands());
        add(new ExpireCommands(store, longStrings, longWrites).commands());
        add(new KeyspaceCommands(store, environment.client(), longWrites).commands());
        add(new RangeCommands(store, longStrings, longWrites).commands());
        add(new BitCommands(store, longStrings, longWrites, longBits).commands());
        add(new LcsCommand(store).commands());
        add(new BitfieldCommand(store, longStrings, longWrites).commands());
        add(new ObjectCommand(store).commands());
        add(new HashCommands(store).commands());
        add(new SetCommands(store, keyspaceEvents).commands());
        add(new SortedSetCommands(store, keyspaceEvents).commands());
        add(new ListCommands(store).commands());
        add(new SortCommand(store, keyspaceEvents).commands());
        add(new MemoryCommand(store).commands());
        add(new TransactionCommands(this, store, environment.client(), severalKeys, storeThreads).commands());
        add(new ServerCommands(environment, this, knobs, store, storeThreads).commands());
        add(new ClusterCommands(environment.cluster()).commands());
        add(new PubSubCommands(environment, store, storeThreads).commands());
        add(new BlockingCommands(store, environment.waiters(), storeThreads).commands());
        scripts = new ScriptCommands(this, environment.client());
        add(scripts.commands());
        for (final CommandSpec spec : commands.values())
        {
            // made now, so that counting a call allocates nothing
            environment.stats().commandStats().of(spec.name());
            if (spec.subcommands() != null)
            {
                spec.subcommands().values().forEach(sub -> environment.stats().commandStats().of(sub.name()));
            }
        }
    }

    private void add(final Collection<CommandSpec> specs)
    {
        for (final CommandSpec spec : specs)
        {
            commands.put(spec.name(), spec);
        }
    }

    CommandEnvironment environment()
    {
        return environment;
    }

    /** @return how long a script runs before other commands get BUSY, in ms (busy-reply-threshold; 0: never). */
    public long busyReplyThresholdMs()
    {
        return knobs.value("busy-reply-threshold");
    }

    /** @return the scripts the pool keeps, for INFO. */
    long cachedScripts()
    {
        return scripts.cachedScripts();
    }

    /** @return true while a script runs past busy-reply-threshold: requests go the table's way, to be refused BUSY. */
    boolean scriptsBusy()
    {
        return scripts.busy("get") != null;
    }

    /**
     * A script's redis.call refused before it ran (unknown, wrong arity, not allowed in scripts, a write from a
     * read-only script): counted as redis's scriptCall counts it, a rejected call of the command and its error.
     *
     * @param spec  the command, or null when the table has none.
     * @param error the error, its code first.
     */
    public void rejected(final CommandSpec spec, final String error)
    {
        final CommandStats stats = environment.stats().commandStats();
        if (spec != null)
        {
            stats.of(spec.name()).rejected.increment();
        }
        stats.error(error);
    }

    /**
     * The reply of a request that answered later ({@link Session#defer}): an error is a failed call of the command,
     * and counts among the errors unless it counted already (a script's redis.call error it passed on).
     */
    public void deferredReply(final String name, final ByteBuf reply, final boolean countError)
    {
        if (reply.readableBytes() > 0 && reply.getByte(reply.readerIndex()) == '-')
        {
            final CommandStats stats = environment.stats().commandStats();
            stats.of(name).failed.increment();
            if (countError)
            {
                final byte[] head = new byte[Math.min(64, reply.readableBytes())];
                reply.getBytes(reply.readerIndex(), head);
                stats.error(head, head.length);
            }
        }
    }

    /**
     * For a script's redis.call: the command a request names, its subcommand's for a container, as the table finds
     * it, or null when the table has no such command or subcommand. Its arity is the caller's to check.
     */
    public CommandSpec lookup(final byte[][] args)
    {
        final CommandSpec spec = commands.get(lowerCase(args[0]));
        if (spec == null || spec.subcommands() == null || args.length < 2)
        {
            return spec;
        }
        return spec.subcommands().get(lowerCase(args[1]));
    }

    /**
     * @return for a command redis 7.0 has and this node does not serve, the error saying so (without its code), else
     * null.
     */
    public static String notServed(final byte[][] args)
    {
        final String name = lowerCase(args[0]);
        return RedisCommandNames.known(name) ?
            "command '" + name.toUpperCase() + "' is not supported by this dkv compute node yet" : null;
    }

    /** @return the commands served, for COMMAND. */
    Collection<CommandSpec> commands()
    {
        return commands.values();
    }

    /**
     * Run one request and write its reply; inside MULTI, queue it (answering QUEUED) unless it is one of those that
     * run at once (EXEC, DISCARD, MULTI, WATCH, QUIT).
     *
     * @param session the connection's state.
     * @param args    the request: its name and arguments, at least one.
     * @param out     where the reply goes.
     */
    /**
     * Run a request with arguments longer than the decoder holds ({@link StagedStrings}), once each was written into
     * its pieces ({@link #stagedArrived}): the commands that take one (SET, SETEX, PSETEX, SETNX, GETSET, APPEND)
     * publish it; any argument no command took is removed. Inside MULTI such a request is refused and the transaction
     * with it, as redis refuses a command it cannot queue. Where the connection allows a step, the command runs on a
     * store thread, a step every later request of the connection waits for: the loop waits on no publishing either.
     */
    public void executeLong(final Session session, final LongRequest request, final ByteBuf out)
    {
        final Object[] written = new Object[request.staged().length];
        String failed = null;
        for (int i = 0; i < written.length; i++)
        {
            if (request.staged()[i] != null)
            {
                try
                {
                    written[i] = StagedStrings.written(request.staged()[i]);
                }
                catch (final RuntimeException ex)
                {
                    failed = failed != null ? failed : "ERR dkv store error: argument " + i + " of '" +
                        Errors.text128(request.args()[0]) + "' was not written into pieces: " +
                        StoreError.text(AsyncStep.cause(ex));
                }
            }
        }
        session.staged(written);
        try
        {
            if (session.inMulti())
            {
                session.multi().refuse();
                RespReplies.error(out, "ERR a value longer than " + KvBlockLayout.MAX_VALUE_LENGTH + " bytes is " +
                    "not queued inside MULTI (dkv)");
                return;
            }
            if (failed != null)
            {
                RespReplies.error(out, failed);
                return;
            }
            final String misplaced = misplacedLongArgument(request.args(), written);
            if (misplaced != null)
            {
                // run, the command would see an empty argument where the long one was
                RespReplies.error(out, misplaced);
                return;
            }
            execute(session, request.args(), out);
        }
        finally
        {
            abandon(session.untakenStaged());
        }
    }

    /**
     * @return true once every long argument of {@code request} is written into its pieces, or failed: it may run.
     * Else {@code then} runs, on a store thread, as each still out is.
     */
    public static boolean stagedArrived(final LongRequest request, final Runnable then)
    {
        boolean arrived = true;
        for (final Object staged : request.staged())
        {
            if (staged != null && !StagedStrings.arrived(staged))
            {
                arrived = false;
                if (then != null)
                {
                    StagedStrings.whenArrived(staged, then);
                }
            }
        }
        return arrived;
    }

    /** A request with long arguments that will not run (its connection closed): their pieces are removed. */
    public void abandon(final LongRequest request)
    {
        for (final Object staged : request.staged())
        {
            if (staged != null)
            {
                StagedStrings.whenWritten(staged, string -> pieced.abandon(string, null), storeThreads.background());
            }
        }
    }

    /** Remove, on a store thread, the pieces of long arguments no command took. */
    private void abandon(final Object[] left)
    {
        if (left != null)
        {
            for (final Object string : left)
            {
                if (string != null)
                {
                    storeThreads.background().execute(() -> pieced.abandon((PiecedString)string, null));
                }
            }
        }
    }

    /** @return the error of a long argument where no command takes one, or null when each is a value SET takes. */
    private static String misplacedLongArgument(final byte[][] args, final Object[] written)
    {
        final String name = lowerCase(args[0]);
        final int valueAt = switch (name)
        {
            case "set", "setnx", "getset", "append" -> 2;
            case "setex", "psetex" -> 3;
            default -> -1;
        };
        for (int i = 0; i < written.length; i++)
        {
            if (written[i] != null && i != valueAt)
            {
                return "ERR an argument longer than " + KvBlockLayout.MAX_VALUE_LENGTH + " bytes is taken only as " +
                    "the value of SET, SETEX, PSETEX, SETNX, GETSET and APPEND (dkv); argument " + i + " of '" +
                    name + "' is " + ((PiecedString)written[i]).length() + " bytes";
            }
        }
        return null;
    }

    public void execute(final Session session, final byte[][] args, final ByteBuf out)
    {
        final int mark = out.writerIndex();
        final int replies = session.replies();
        run(session, args, out);
        // CLIENT REPLY OFF or SKIP (unless the command turned replies on): the reply is dropped, but not what
        // pub/sub pushes (redis's CLIENT_PUSHING)
        if (replies != Session.REPLIES_ON && session.replies() != Session.REPLIES_ON &&
            !PubSubCommands.pushes(args[0]))
        {
            out.writerIndex(mark);
            // a script's reply, which comes later, goes the same way
            session.dropDeferredReply();
        }
        if (replies == Session.REPLIES_SKIP_NEXT && session.replies() == Session.REPLIES_SKIP_NEXT)
        {
            session.replies(Session.REPLIES_ON);
        }
    }

    private void run(final Session session, final byte[][] args, final ByteBuf out)
    {
        final CommandSpec spec = find(session, args, out);
        if (spec == null)
        {
            return;
        }
        final String subscribed = PubSubCommands.subscribedModeRefusal(session, spec);
        if (subscribed != null)
        {
            refuse(session, spec, subscribed, out);
            return;
        }
        final String busy = scripts.busy(spec.name());
        if (busy != null)
        {
            refuse(session, spec, busy, out);
            return;
        }
        final String misconf = writeRefusal();
        if (misconf != null && (CommandRules.flaggedWrite(spec.name()) || spec.name().equals("ping") ||
            spec.name().equals("exec") && session.multi().writes()))
        {
            // redis's processCommand: writes (EXEC of any) and PING are refused while the disk refuses writes
            refuse(session, spec, misconf, out);
            return;
        }
        if (session.inMulti() && PubSubCommands.notInMulti(spec.name()))
        {
            refuse(session, spec, "ERR " + spec.name().toUpperCase() + " is not allowed inside MULTI on dkv: a " +
                "transaction may run its commands more than once, and a subscription cannot be taken back",
                out);
            return;
        }
        if (session.inMulti() && !TransactionCommands.runsAtOnce(spec.name()))
        {
            final String oom = fullRefusal(spec, args);
            if (oom != null)
            {
                // redis's processCommand: a write that may grow memory is not queued at the limit (EXECABORT)
                refuse(session, spec, oom, out);
                return;
            }
            session.multi().queue(spec, args);
            RespReplies.simple(out, "QUEUED");
            return;
        }
        run(session, spec, args, out);
    }

    /**
     * @return redis's OOM error for a command of its DENYOOM flag whose key has a copy on a memory node with no room
     * now for writes other than deletes (one READ of each copy's node), or null: what MULTI asks before it queues a
     * write and a script before it calls one, as redis checks its memory then. A command run at once needs no asking:
     * its write meets the full node itself.
     */
    public String fullRefusal(final CommandSpec spec, final byte[][] args)
    {
        final KvClient client = environment.client();
        if (client == null || !CommandRules.deniedAtFull(spec.name()))
        {
            return null;
        }
        for (final byte[] key : CommandKeys.keysOf(spec.name(), args))
        {
            final long node = key.length == 0 ? 0 : client.fullCopy(key);
            if (node != 0)
            {
                return StoreError.OOM + " (memory node " + node + " has no room left outside its reserve for " +
                    "deletes)";
            }
        }
        return null;
    }

    /** @return the MISCONF error writes get now (a memory node's disk refuses writes), or null. */
    public String writeRefusal()
    {
        final Persistence persistence = environment.persistence();
        return persistence == null ? null : persistence.writeRefusal();
    }

    /**
     * The request's command, refused as redis-server 7 refuses it and in its order: an unknown command or
     * subcommand, then a wrong number of arguments, then a connection that has not authenticated, then (inside MULTI)
     * a command redis never queues.
     *
     * @return its spec (a subcommand's, for a container), or null when it was refused: its error is written.
     */
    private CommandSpec find(final Session session, final byte[][] args, final ByteBuf out)
    {
        final String name = lowerCase(args[0]);
        CommandSpec spec = commands.get(name);
        if (spec == null)
        {
            final Integer noMultiArity = NO_MULTI.get(name);
            if (session.inMulti() && noMultiArity != null)
            {
                refuse(session, null, arityFits(noMultiArity, args.length) ?
                    "ERR Command not allowed inside a transaction" : Errors.arity(name), out);
                return null;
            }
            refuse(session, null, RedisCommandNames.known(name) ?
                "ERR command '" + name.toUpperCase() + "' is not supported by this dkv compute node yet" :
                unknownCommand(args), out);
            return null;
        }
        if (spec.subcommands() != null && args.length >= 2)
        {
            final CommandSpec sub = spec.subcommands().get(lowerCase(args[1]));
            if (sub == null)
            {
                refuse(session, spec, "ERR unknown subcommand '" + Errors.text128(args[1]) + "'. Try " +
                    Errors.text(args[0]).toUpperCase() + " HELP.", out);
                return null;
            }
            spec = sub;
        }
        if (!spec.arityFits(args.length))
        {
            refuse(session, spec, Errors.arity(spec.name()), out);
            return null;
        }
        if (!session.authenticated() && !spec.noAuth())
        {
            refuse(session, spec, Errors.NOAUTH, out);
            return null;
        }
        return spec;
    }

    /**
     * redis's rejectCommand: a refusal inside MULTI makes EXEC refuse the transaction; a refused EXEC ends it (and
     * unwatches) at once, saying why.
     */
    private void refuse(final Session session, final CommandSpec spec, final String error, final ByteBuf out)
    {
        final CommandStats stats = environment.stats().commandStats();
        if (spec != null)
        {
            stats.of(spec.name()).rejected.increment();
        }
        if (session.inMulti())
        {
            session.multi().refuse();
        }
        if (spec != null && spec.name().equals("exec"))
        {
            session.multi().end();
            final String aborted = "EXECABORT Transaction discarded because of: " +
                (error.startsWith("ERR ") ? error.substring(4) : error);
            stats.error(aborted);
            RespReplies.error(out, aborted);
            return;
        }
        stats.error(error);
        RespReplies.error(out, error);
    }

    /**
     * Run a command found and checked, now: a request outside MULTI, or one queued, from EXEC. Inside EXEC's
     * transaction a store error or a conflict is not the command's reply: it ends the run (a conflict runs the
     * transaction again), so it is thrown on. Scripts run their redis.call commands through it too.
     */
    public void run(final Session session, final CommandSpec spec, final byte[][] args, final ByteBuf out)
    {
        final NodeStats stats = environment.stats();
        stats.command();
        final int start = out.writerIndex();
        final long began = stats.nanoClock().nanoTime();
        try
        {
            final byte[] reserved = ServerCommands.reservedKey(spec.name(), args);
            if (reserved != null)
            {
                RespReplies.error(out, "ERR " + ReservedKeys.refusal("'" + Errors.text128(reserved) + "'"));
            }
            else
            {
                if (session.hasStaged() && session.mayAwait(store))
                {
                    // a long argument's publishing waits on the store: on a store thread, which takes the argument
                    final Object[] staged = session.untakenStaged();
                    storeThreads.offload(session, null, reply ->
                    {
                        session.staged(staged);
                        try
                        {
                            spec.handler().execute(session, args, reply);
                        }
                        finally
                        {
                            abandon(session.untakenStaged());
                        }
                    });
                }
                else if (OffloadedCommands.offloaded(spec.name(), args) && !session.hasStaged() &&
                    session.mayAwait(store))
                {
                    if (!OffloadedCommands.replayable(spec.name()) || !session.completionsCarry() ||
                        !replayed.start(session, store, spec, args))
                    {
                        storeThreads.offload(session, OffloadedCommands.stepKey(spec.name(), args),
                            reply -> spec.handler().execute(session, args, reply));
                    }
                }
                else
                {
                    spec.handler().execute(session, args, out);
                }
                final AsyncStep step = session.step();
                if (step != null)
                {
                    // the reply, and what follows it here, come when the operation completes (finish)
                    step.ran(spec, args, began);
                    return;
                }
                keyspaceEvents.after(session, spec.name(), args, out, start);
                ready(session, spec, args, false);
            }
        }
        catch (final RuntimeException ex)
        {
            if (ex instanceof ReadsNeeded)
            {
                // a replayed EXEC's run ends at a key not read yet: the command runs again once it is
                throw ex;
            }
            if (session.executing() && !(ex instanceof IllegalArgumentException) && !(ex instanceof WrongKindException))
            {
                // a store error inside EXEC or a script ends the transaction, which answers it
                stats.commandStats().of(spec.name()).calls.increment();
                throw ex;
            }
            answerFailure(spec, ex, out);
        }
        counted(spec, began, out, start);
    }

    /**
     * The reply of a request whose store operation went out asynchronously ({@link Session#await}), made on the
     * connection's event loop once the operation completed, then what {@link #run} does after a command's reply.
     */
    public void finish(final Session session, final AsyncStep step, final ByteBuf out)
    {
        final int start = out.writerIndex();
        environment.stats().asyncStep();
        try
        {
            step.finish(out);
            keyspaceEvents.after(session, step.spec().name(), step.args(), out, start);
            ready(session, step.spec(), step.args(), true);
        }
        catch (final RuntimeException ex)
        {
            answerFailure(step.spec(), ex, out);
        }
        counted(step.spec(), step.began(), out, start);
    }

    private static void answerFailure(final CommandSpec spec, final RuntimeException failure, final ByteBuf out)
    {
        if (failure instanceof IllegalArgumentException ex)
        {
            // the client refused a key or value before touching the store (e.g. an empty key, which dkv has not)
            RespReplies.error(out, "ERR " + ex.getMessage());
        }
        else if (failure instanceof WrongKindException ex)
        {
            // a command of one type met a key of another, before it changed anything: its reply, inside EXEC too
            RespReplies.error(out, ex.kind() == ValueKind.PIECES ? LongStrings.refusal(spec.name()) :
                Errors.WRONGTYPE);
        }
        else
        {
            RespReplies.error(out, StoreError.reply(failure));
        }
    }

    /** Count a call of {@code spec} that began at {@code began} and answered from {@code start} of {@code out}. */
    private void counted(final CommandSpec spec, final long began, final ByteBuf out, final int start)
    {
        final NodeStats stats = environment.stats();
        final CommandStats.Counters counters = stats.commandStats().of(spec.name());
        counters.calls.increment();
        counters.nanos.add(stats.nanoClock().nanoTime() - began);
        if (out.writerIndex() > start && out.getByte(start) == '-')
        {
            counters.failed.increment();
            final byte[] head = new byte[Math.min(64, out.writerIndex() - start)];
            out.getBytes(start, head);
            stats.commandStats().error(head, head.length);
        }
    }

    /**
     * Signal the keys the command may have made a list or a sorted set: now, or after EXEC's transaction; after a step
     * (on the connection's loop) the round serving their waiters runs each waiter's command, a transaction, so it goes
     * to a store thread and the connection waits for it ({@link Session#roundOut}).
     */
    private void ready(final Session session, final CommandSpec spec, final byte[][] args, final boolean afterStep)
    {
        final Waiters waiters = environment.waiters();
        if (!waiters.anyWaiting())
        {
            return;
        }
        final byte[][] keys = BlockingCommands.readied(spec.name(), args);
        if (keys == null)
        {
            return;
        }
        if (afterStep)
        {
            session.roundOut(storeThreads.supply(() ->
            {
                for (final byte[] key : keys)
                {
                    waiters.ready(key);
                }
                return Boolean.TRUE;
            }));
            return;
        }
        for (final byte[] key : keys)
        {
            if (session.executing())
            {
                session.afterCommit(() -> waiters.ready(key));
            }
            else
            {
                waiters.ready(key);
            }
        }
    }

    /**
     * @return where a connection reads ahead the pieces of a string its reply streams, and writes those of a long
     * argument as it arrives ({@link StagedStrings}): the store threads.
     */
    public Executor background()
    {
        return storeThreads.background();
    }

    /** The connection closed (on its loop): its blocked command takes nothing, its subscriptions end. */
    public void connectionClosed(final Session session)
    {
        if (session.blocked() != null)
        {
            environment.waiters().abandon(session.blocked());
            session.block(null);
        }
        if (session.subscriber() != null)
        {
            environment.pubsub().gone(session.subscriber());
        }
    }

    /** The node drains: a blocked command answers as if its timeout came. */
    public void endBlocked(final Session session)
    {
        if (session.blocked() != null)
        {
            environment.waiters().end(session.blocked(), null);
        }
    }

    /** @return the node's keyspace notifications, which CONFIG SET turns on. */
    KeyspaceEvents keyspaceEvents()
    {
        return keyspaceEvents;
    }

    /** A transaction committed (EXEC's, a script's): what its commands deferred to then runs now. */
    public static void committed(final Session session)
    {
        final java.util.List<Runnable> deferred = session.takeAfterCommit();
        if (deferred != null)
        {
            deferred.forEach(Runnable::run);
        }
    }

    private static boolean arityFits(final int arity, final int argc)
    {
        return arity >= 0 ? argc == arity : argc >= -arity;
    }

    /** redis's text: the name and the arguments' beginnings, each quoted, while the list is under 128 characters. */
    static String unknownCommand(final byte[][] args)
    {
        final StringBuilder listed = new StringBuilder();
        for (int i = 1; i < args.length && listed.length() < 128; i++)
        {
            final String arg = Errors.text(args[i]);
            listed.append('\'').append(arg, 0, Math.min(arg.length(), 128 - listed.length())).append("' ");
        }
        return "ERR unknown command '" + Errors.text128(args[0]) + "', with args beginning with: " + listed;
    }

    static String lowerCase(final byte[] name)
    {
        final byte[] lower = new byte[name.length];
        for (int i = 0; i < name.length; i++)
        {
            final byte b = name[i];
            lower[i] = b >= 'A' && b <= 'Z' ? (byte)(b + ('a' - 'A')) : b;
        }
        return new String(lower, StandardCharsets.ISO_8859_1);
    }

    static boolean is(final byte[] arg, final String lowerCaseWord)
    {
        return isPrefix(arg, arg.length, lowerCaseWord);
    }

    /**
     * @return true when the argument is the word as C's strcasecmp sees it (redis's SORT options, its getkeys
     * functions): up to the argument's first NUL byte, case aside.
     */
    static boolean isCString(final byte[] arg, final String lowerCaseWord)
    {
        int length = 0;
        while (length < arg.length && arg[length] != 0)
        {
            length++;
        }
        return isPrefix(arg, length, lowerCaseWord);
    }

    /** @return true when the argument's first {@code length} bytes are the word, case aside. */
    private static boolean isPrefix(final byte[] arg, final int length, final String lowerCaseWord)
    {
        if (length != lowerCaseWord.length())
        {
            return false;
        }
        for (int i = 0; i < length; i++)
        {
            final byte b = arg[i];
            final int lower = b >= 'A' && b <= 'Z' ? b + ('a' - 'A') : b;
            if (lower != lowerCaseWord.charAt(i))
            {
                return false;
            }
        }
        return true;
    }

    /** @return a command without subcommands, which a connection runs once it authenticated. */
    public static CommandSpec spec(final String name, final int arity, final CommandHandler handler)
    {
        return new CommandSpec(name, arity, false, handler, null);
    }
}
