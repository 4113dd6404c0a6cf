package io.dkv.compute.script;

import io.dkv.compute.command.CommandSpec;
import io.dkv.compute.command.CommandTable;
import io.dkv.compute.command.Scores;
import io.dkv.compute.command.Session;
import io.dkv.compute.command.StoreError;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * One run of a script or function, over the attempts of its transaction, as redis 7.0's scriptRunCtx: the client its
 * redis.call commands run as (RESP2 until redis.setresp, over the attempt's transaction), whether it may write, when it
 * began, and whether it was stopped: killed, or aborted by a store error or conflict that its caller must see rather
 * than the script (a conflict runs the whole script again). A stopped run raises its stop at every instruction, so no
 * pcall keeps it going. Its Lua runs on one thread; {@link #kill} comes from others.
 */
final class ScriptRun
{
    static final String KILLED = "Script killed by user with SCRIPT KILL...";

    private final CommandTable table;
    private final Session client;
    private final boolean eval;
    private final String name;
    private final byte[][] request;
    private final long startedNanos;
    private final long deadlineNanos;
    private boolean readOnly;
    private volatile LuaError stop;
    private volatile boolean killed;
    private boolean errorCounted;
    private RuntimeException abort;
    private int protocol = 2;
    private int instructions;
    private ScriptHook hook;

    /**
     * A run of a script or function, begun now; {@link #begin} starts each attempt.
     *
     * @param table    runs its commands.
     * @param callerId the id of the connection that runs it.
     * @param eval     true for EVAL and EVALSHA, false for FCALL.
     * @param name     the script's sha or the function's name.
     * @param request  the caller's request, for FUNCTION STATS.
     */
    ScriptRun(final CommandTable table, final long callerId, final boolean eval, final String name,
        final byte[][] request)
    {
        this.table = table;
        this.client = new Session(callerId, true, () ->
        {
        });
        client.scripted(true);
        this.eval = eval;
        this.name = name;
        this.request = request;
        this.startedNanos = System.nanoTime();
        this.deadlineNanos = 0;
    }

    /** A load of a function library, stopped once it has run {@code timeoutNanos}; it runs no commands. */
    ScriptRun(final long timeoutNanos)
    {
        this.table = null;
        this.client = null;
        this.eval = false;
        this.name = "";
        this.request = new byte[0][];
        this.readOnly = true;
        this.startedNanos = System.nanoTime();
        this.deadlineNanos = startedNanos + timeoutNanos;
    }

    /**
     * Begin an attempt of the run's transaction: RESP2 again, nothing stopped it but a kill.
     *
     * @param store    the attempt's transaction.
     * @param readOnly true when it may not write (EVAL_RO, FCALL_RO, no-writes).
     */
    void begin(final KeyStore store, final boolean readOnly)
    {
        this.readOnly = readOnly;
        client.executing(store);
        // what an earlier attempt's commands deferred to its commit is that attempt's, which a conflict ended
        client.takeAfterCommit();
        protocol(2);
        abort = null;
        errorCounted = false;
        if (!killed)
        {
            stop = null;
        }
    }

    /** @return the client the run's commands run as, which keeps what they defer to the commit. */
    Session client()
    {
        return client;
    }

    boolean eval()
    {
        return eval;
    }

    String name()
    {
        return name;
    }

    byte[][] request()
    {
        return request;
    }

    long startedNanos()
    {
        return startedNanos;
    }

    /** @return 2 or 3, as redis.setresp chose: how its commands' replies and its booleans are made. */
    int protocol()
    {
        return protocol;
    }

    void protocol(final int protocol)
    {
        this.protocol = protocol;
        client.protocol(protocol);
    }

    /** Stop the run at its next instruction, answering redis's error; nothing it wrote is committed. */
    void kill()
    {
        killed = true;
        stop = ScriptErrors.raise(KILLED);
    }

    /** @return true once the run was killed or aborted: it stops at every instruction from now on. */
    boolean stopped()
    {
        return stop != null || killed;
    }

    /** At each instruction: stop a run that was stopped, and a library's load past its time. */
    void checkpoint()
    {
        final LuaError stopped = stop;
        if (stopped != null)
        {
            throw stopped;
        }
        if (killed)
        {
            // killed as an attempt began, which cleared its stop
            stop = ScriptErrors.raise(KILLED);
            throw stop;
        }
        if (deadlineNanos != 0 && (++instructions & 1023) == 0 && System.nanoTime() - deadlineNanos > 0)
        {
            stop = ScriptErrors.raise("FUNCTION LOAD timeout");
            throw stop;
        }
    }

    /** @param hook the hook of the globals the user's code runs with, which knows its lines. */
    void hook(final ScriptHook hook)
    {
        this.hook = hook;
    }

    /** @return the error reply of a script that failed with {@code error}, without its '-'. */
    String errorReply(final LuaError error)
    {
        return ScriptErrors.reply(error, name, hook == null ? null : hook.source(), hook == null ? 0 : hook.line());
    }

    /**
     * Run the script's Lua.
     *
     * @return its value, or null when it raised an error: the error reply is written.
     * @throws RuntimeException       the store error or conflict that stopped it (a conflict runs it again).
     * @throws ScriptRunner.Killed when it was killed.
     */
    LuaValue execute(final Supplier<LuaValue> body, final ByteBuf reply)
    {
        try
        {
            return body.get();
        }
        catch (final LuaError ex)
        {
            if (abort != null)
            {
                throw abort;
            }
            errorCounted = ScriptErrors.isCounted(ex.getMessageObject());
            if (killed)
            {
                throw new ScriptRunner.Killed(errorReply(ex));
            }
            RespReplies.error(reply, errorReply(ex));
            return null;
        }
        catch (final StackOverflowError ex)
        {
            RespReplies.error(reply, "ERR Error running script " + name + ", stack overflow");
            return null;
        }
    }

    /** The run answers {@code value}: an error table a command counted already is not counted again. */
    void answered(final LuaValue value)
    {
        errorCounted = ScriptErrors.isCounted(value);
    }

    /** @return true when the run's error reply was counted already, by the command that gave it. */
    boolean errorCounted()
    {
        return errorCounted;
    }

    /**
     * redis.call (raising the command's error) or redis.pcall (returning it), as redis 7.0's luaRedisGenericCommand and
     * scriptCall: the arguments strings or numbers ("%.17g"), the command known with its arity, allowed in scripts
     * and, in a read-only run, not a write; then run as the table runs any command, over the run's transaction.
     */
    LuaValue call(final Varargs args, final boolean raise)
    {
        final int argc = args.narg();
        if (argc == 0)
        {
            return fail(raise, "Please specify at least one argument for this redis lib call");
        }
        final byte[][] argv = arguments(args);
        if (argv == null)
        {
            return fail(raise, "Lua redis lib command arguments must be strings or integers");
        }
        final CommandSpec spec = table.lookup(argv);
        final String misconf = spec != null && CommandRules.flaggedWrite(spec.name()) ? table.writeRefusal() : null;
        if (misconf != null)
        {
            // redis's scriptVerifyWriteCommandAllow: a write while the disk refuses them fails in the script
            table.rejected(spec, misconf);
            return fail(raise, "-" + misconf);
        }
        final String refusal = refusal(spec, argv);
        if (refusal != null)
        {
            table.rejected(spec, "ERR " + refusal);
            return fail(raise, refusal);
        }
        final String oom = table.fullRefusal(spec, argv);
        if (oom != null)
        {
            // redis's scriptCall: a write that may grow memory fails at the limit, in the script (pcall sees it)
            table.rejected(spec, oom);
            return fail(raise, "-" + oom);
        }
        final ByteBuf reply = Unpooled.buffer();
        try
        {
            table.run(client, spec, argv, reply);
            final boolean error = reply.getByte(reply.readerIndex()) == '-';
            final LuaValue value = RespToLua.read(reply);
            if (raise && error)
            {
                throw new LuaError(value);
            }
            return value;
        }
        catch (final LuaError ex)
        {
            throw ex;
        }
        catch (final RuntimeException ex)
        {
            // a store error or a conflict: the run's transaction ends, whatever the script would do with it
            abort = ex;
            stop = ScriptErrors.raise("-" + StoreError.reply(ex));
            throw stop;
        }
        finally
        {
            reply.release();
        }
    }

    /** @return true when the command the arguments name is one the node has (redis.acl_check_cmd). */
    boolean knows(final Varargs args)
    {
        final byte[][] argv = arguments(args);
        return argv != null && table.lookup(argv) != null;
    }

    /** @return the arguments as a request, numbers as "%.17g" writes them; null when one is neither. */
    private static byte[][] arguments(final Varargs args)
    {
        final byte[][] argv = new byte[args.narg()][];
        for (int i = 0; i < argv.length; i++)
        {
            final LuaValue arg = args.arg(i + 1);
            if (arg.type() == LuaValue.TNUMBER)
            {
                argv[i] = Scores.format(arg.todouble()).getBytes(StandardCharsets.US_ASCII);
            }
            else if (arg.type() == LuaValue.TSTRING)
            {
                argv[i] = LuaToResp.bytes(arg);
            }
            else
            {
                return null;
            }
        }
        return argv;
    }

    private String refusal(final CommandSpec spec, final byte[][] argv)
    {
        if (spec == null)
        {
            final String name = ScriptStore.text(argv[0]).toLowerCase();
            if (CommandRules.noScript(name) ||
                argv.length > 1 && CommandRules.noScript(name + "|" + ScriptStore.text(argv[1]).toLowerCase()))
            {
                // redis refuses these in scripts whatever their arguments; this node serves some of them not at all
                return "This Redis command is not allowed from script";
            }
            final String notServed = CommandTable.notServed(argv);
            return notServed != null ? notServed : "Unknown Redis command called from script";
        }
        if (!spec.arityFits(argv.length))
        {
            return "Wrong number of args calling Redis command from script";
        }
        if (CommandRules.noScript(spec.name()))
        {
            return "This Redis command is not allowed from script";
        }
        if (readOnly && CommandRules.writes(spec.name()))
        {
            return "Write commands are not allowed from read-only scripts.";
        }
        return null;
    }

    private static LuaValue fail(final boolean raise, final String message)
    {
        final LuaTable error = ScriptErrors.counted(ScriptErrors.table(message));
        if (raise)
        {
            throw new LuaError(error);
        }
        return error;
    }
}
