package io.dkv.compute.script;

import io.dkv.client.KvClient;
import io.dkv.compute.command.CommandSpec;
import io.dkv.compute.command.CommandTable;
import io.dkv.compute.command.Session;
import io.dkv.compute.resp.RespNumbers;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.netty.buffer.ByteBuf;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.dkv.compute.command.CommandTable.spec;

/**
 * EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT LOAD, EXISTS, FLUSH, KILL, with redis 7.0's replies and errors; with
 * {@link FunctionCommands} the node's scripting, and the BUSY answer while a script runs past busy-reply-threshold.
 * Each run is one transaction ({@link ScriptRunner}); script bodies live in the store ({@link ScriptStore}), so any
 * compute node runs a script any other loaded.
 */
public final class ScriptCommands
{
    static final String NOSCRIPT = "NOSCRIPT No matching script. Please use EVAL.";
    /** What redis 7.0 runs while a script is busy (its allow-busy flag). */
    private static final Set<String> ALLOW_BUSY = Set.of("auth", "discard", "function|kill", "function|stats",
        "hello", "multi", "quit", "replconf", "reset", "script|kill", "shutdown", "unwatch", "watch");
    private static final List<String> HELP = List.of(
        "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "DEBUG (YES|SYNC|NO)",
        "    Set the debug mode for subsequent scripts executed.",
        "EXISTS <sha1> [<sha1> ...]",
        "    Return information about the existence of the scripts in the script cache.",
        "FLUSH [ASYNC|SYNC]",
        "    Flush the Lua scripts cache. Very dangerous on replicas.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the scripts cache.",
        "    * SYNC: Synchronously flush the scripts cache.",
        "KILL",
        "    Kill the currently executing Lua script.",
        "LOAD <script>",
        "    Load a script into the scripts cache without executing it.",
        "HELP",
        "    Prints this help.");

    private final CommandTable table;
    private final CompiledChunks chunks = new CompiledChunks();
    private final RunningScripts running;
    private final ScriptRunner runner;
    private final ScriptStore scripts;
    private final FunctionCommands functions;

    /**
     * @param table  runs the scripts' commands, and knows busy-reply-threshold.
     * @param client the store.
     */
    public ScriptCommands(final CommandTable table, final KvClient client)
    {
        this.table = table;
        this.running = new RunningScripts(table::busyReplyThresholdMs);
        this.runner = new ScriptRunner(table, client, running);
        this.scripts = new ScriptStore(client);
        this.functions = new FunctionCommands(table, client, runner, running, new FunctionLibraries(chunks));
    }

    /** @return the commands, for the table. */
    public List<CommandSpec> commands()
    {
        final List<CommandSpec> specs = new ArrayList<>(List.of(
            spec("eval", -3, (session, args, out) -> eval(session, args, out, false)),
            spec("eval_ro", -3, (session, args, out) -> eval(session, args, out, true)),
            spec("evalsha", -3, (session, args, out) -> evalSha(session, args, out, false)),
            spec("evalsha_ro", -3, (session, args, out) -> evalSha(session, args, out, true)),
            new CommandSpec("script", -2, false, null, Map.of(
                "load", spec("script|load", 3, this::load),
                "exists", spec("script|exists", -3, this::exists),
                "flush", spec("script|flush", -2, this::flush),
                "kill", spec("script|kill", 2, (session, args, out) -> killed(running.kill(true), out)),
                "debug", spec("script|debug", 3, this::debug),
                "help", spec("script|help", 2, (session, args, out) ->
                {
                    RespReplies.arrayHeader(out, HELP.size());
                    HELP.forEach(line -> RespReplies.simple(out, line));
                })))));
        specs.addAll(functions.commands());
        return specs;
    }

    /** @return the scripts the pool's store keeps (INFO's number_of_cached_scripts): EVAL's and SCRIPT LOAD's. */
    public long cachedScripts()
    {
        return scripts.count();
    }

    /**
     * @param name the command about to run (a subcommand's {@code container|sub}).
     * @return BUSY's error while a script on this node runs past busy-reply-threshold and the command is not one
     * redis runs meanwhile; else null.
     */
    public String busy(final String name)
    {
        final String busy = running.busy();
        return busy == null || ALLOW_BUSY.contains(name) ? null : busy;
    }

    static void killed(final String error, final ByteBuf out)
    {
        if (error == null)
        {
            RespReplies.ok(out);
        }
        else
        {
            RespReplies.error(out, error);
        }
    }

    /**
     * @return the number of keys of an EVAL or FCALL, or -1 when it is refused: its error is written ({@code
     * notInteger} for a count that is not an integer).
     */
    static long numKeys(final byte[][] args, final ByteBuf out, final String notInteger)
    {
        if (!RespNumbers.isLong(args[2]))
        {
            RespReplies.error(out, notInteger);
            return -1;
        }
        final long numKeys = RespNumbers.parseLong(args[2]);
        if (numKeys > args.length - 3)
        {
            RespReplies.error(out, "ERR Number of keys can't be greater than number of args");
            return -1;
        }
        if (numKeys < 0)
        {
            RespReplies.error(out, "ERR Number of keys can't be negative");
            return -1;
        }
        return numKeys;
    }

    private void eval(final Session session, final byte[][] args, final ByteBuf out, final boolean ro)
    {
        final long numKeys = numKeys(args, out, "ERR value is not an integer or out of range");
        if (numKeys < 0)
        {
            return;
        }
        final byte[] body = args[1];
        final String sha = ScriptStore.sha(body);
        final Prototype chunk = compile(body, sha, out);
        if (chunk == null)
        {
            return;
        }
        final int flags = Shebang.script(body).flags();
        if (refusedReadOnly(flags, ro, out))
        {
            return;
        }
        final int protocol = session.protocol();
        final ScriptRun run = new ScriptRun(table, session.id(), true, sha, args);
        runner.run(session, out, run, (store, tx, reply) ->
        {
            scripts.keepUnlessFull(tx, sha, body);
            execute(run, store, chunk, readOnly(flags, ro), args, (int)numKeys, protocol, reply);
        });
    }

    private void evalSha(final Session session, final byte[][] args, final ByteBuf out, final boolean ro)
    {
        if (args[1].length != 40)
        {
            RespReplies.error(out, NOSCRIPT);
            return;
        }
        final long numKeys = numKeys(args, out, "ERR value is not an integer or out of range");
        if (numKeys < 0)
        {
            return;
        }
        final String sha = ScriptStore.text(args[1]).toLowerCase();
        final int protocol = session.protocol();
        final ScriptRun run = new ScriptRun(table, session.id(), true, sha, args);
        runner.run(session, out, run, (store, tx, reply) ->
        {
            final byte[] body = ScriptStore.read(tx, sha);
            if (body == null)
            {
                RespReplies.error(reply, NOSCRIPT);
                return;
            }
            final Prototype chunk = compile(body, sha, reply);
            final int flags = Shebang.script(body).flags();
            if (chunk == null || refusedReadOnly(flags, ro, reply))
            {
                return;
            }
            execute(run, store, chunk, readOnly(flags, ro), args, (int)numKeys, protocol, reply);
        });
    }

    /** @return the script's chunk, or null when it does not compile: its error is written. */
    private Prototype compile(final byte[] body, final String sha, final ByteBuf out)
    {
        final Shebang.Script script = Shebang.script(body);
        if (script.error() != null)
        {
            RespReplies.error(out, "ERR " + script.error());
            return null;
        }
        try
        {
            return chunks.compile(sha, body, script.codeFrom(), "@user_script");
        }
        catch (final LuaError ex)
        {
            RespReplies.error(out, "ERR Error compiling script (new function): " +
                ScriptErrors.compileError(ex.getMessage()));
            return null;
        }
    }

    /** A script that may write, run by EVAL_RO or EVALSHA_RO, is refused (redis's scriptPrepareForRun). */
    static boolean refusedReadOnly(final int flags, final boolean ro, final ByteBuf out)
    {
        if (ro && (flags & Shebang.EVAL_COMPAT) == 0 && (flags & Shebang.NO_WRITES) == 0)
        {
            RespReplies.error(out, "ERR Can not execute a script with write flag using *_ro command.");
            return true;
        }
        return false;
    }

    static boolean readOnly(final int flags, final boolean ro)
    {
        return ro || (flags & Shebang.EVAL_COMPAT) == 0 && (flags & Shebang.NO_WRITES) != 0;
    }

    /** One attempt of a script: fresh globals with its KEYS and ARGV, its chunk run, its value or error answered. */
    private static void execute(final ScriptRun run, final KeyStore store, final Prototype chunk,
        final boolean readOnly, final byte[][] args, final int numKeys, final int protocol, final ByteBuf reply)
    {
        run.begin(store, readOnly);
        final byte[][] keys = Arrays.copyOfRange(args, 3, 3 + numKeys);
        final byte[][] argv = Arrays.copyOfRange(args, 3 + numKeys, args.length);
        final LuaValue value = run.execute(() -> new LuaClosure(chunk, LuaSandbox.forEval(run, keys, argv)).call(),
            reply);
        if (value != null)
        {
            run.answered(value);
            LuaToResp.write(reply, value, protocol, run.protocol());
        }
    }

    private void load(final Session session, final byte[][] args, final ByteBuf out)
    {
        final String sha = ScriptStore.sha(args[2]);
        if (compile(args[2], sha, out) != null)
        {
            scripts.load(sha, args[2]);
            RespReplies.bulk(out, sha);
        }
    }

    private void exists(final Session session, final byte[][] args, final ByteBuf out)
    {
        final List<String> shas = new ArrayList<>();
        for (int i = 2; i < args.length; i++)
        {
            shas.add(ScriptStore.text(args[i]));
        }
        final boolean[] found = scripts.exists(shas);
        RespReplies.arrayHeader(out, found.length);
        for (final boolean one : found)
        {
            RespReplies.integer(out, one ? 1 : 0);
        }
    }

    private void flush(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (args.length > 3 || args.length == 3 && !isWord(args[2], "sync") && !isWord(args[2], "async"))
        {
            RespReplies.error(out, "ERR SCRIPT FLUSH only support SYNC|ASYNC option");
            return;
        }
        scripts.flush();
        RespReplies.ok(out);
    }

    private void debug(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (isWord(args[2], "no"))
        {
            RespReplies.ok(out);
        }
        else if (isWord(args[2], "yes") || isWord(args[2], "sync"))
        {
            RespReplies.error(out, "ERR SCRIPT DEBUG is not served by this dkv compute node: it has no Lua debugger");
        }
        else
        {
            RespReplies.error(out, "ERR Use SCRIPT DEBUG YES/SYNC/NO");
        }
    }

    static boolean isWord(final byte[] arg, final String word)
    {
        return ScriptStore.text(arg).equalsIgnoreCase(word);
    }
}
