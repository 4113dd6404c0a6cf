package io.dkv.compute.script;

import io.dkv.client.KvClient;
import io.dkv.client.keyspace.KeyPattern;
import io.dkv.compute.command.CommandSpec;
import io.dkv.compute.command.CommandTable;
import io.dkv.compute.command.Session;
import io.dkv.compute.resp.RespReplies;
import io.netty.buffer.ByteBuf;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.dkv.compute.command.CommandTable.spec;

/**
 * FUNCTION LOAD [REPLACE], LIST [LIBRARYNAME pattern] [WITHCODE], DELETE, FLUSH, KILL, STATS, DUMP, RESTORE
 * ({@link FunctionDump}), and FCALL, FCALL_RO, with
 * redis 7.0's replies and errors. The libraries are the store's ({@link FunctionLibraries}): a library loaded through
 * one compute node is called through any other, and LOAD, DELETE and FLUSH are transactions over them.
 */
final class FunctionCommands
{
    private static final List<String> HELP = List.of(
        "FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "LOAD [REPLACE] <FUNCTION CODE>",
        "    Create a new library with the given library name and code.",
        "DELETE <LIBRARY NAME>",
        "    Delete the given library.",
        "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
        "    Return general information on all the libraries:",
        "    * Library name",
        "    * The engine used to run the Library",
        "    * Library description",
        "    * Functions list",
        "    * Library code (if WITHCODE is given)",
        "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
        "STATS",
        "    Return information about the current function running:",
        "    * Function name",
        "    * Command used to run the function",
        "    * Duration in MS that the function is running",
        "    If no function is running, return nil",
        "    In addition, returns a list of available engines.",
        "KILL",
        "    Kill the current running function.",
        "FLUSH [ASYNC|SYNC]",
        "    Delete all the libraries.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the libraries.",
        "    * SYNC: Synchronously flush the libraries.",
        "DUMP",
        "    Return a serialized payload representing the current libraries, can be restored using FUNCTION " +
            "RESTORE command",
        "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
        "    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
        "    control how to handle existing libraries (default APPEND):",
        "    * FLUSH: delete all existing libraries.",
        "    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
        "    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
        "      libraries with the new libraries (notice that even on this option there is a chance of failure",
        "      in case of functions name collision with another library).",
        "HELP",
        "    Prints this help.");

    private final CommandTable table;
    private final KvClient client;
    private final ScriptRunner runner;
    private final RunningScripts running;
    private final FunctionLibraries libraries;
    private final FunctionDump dump;

    FunctionCommands(final CommandTable table, final KvClient client, final ScriptRunner runner,
        final RunningScripts running, final FunctionLibraries libraries)
    {
        this.table = table;
        this.client = client;
        this.runner = runner;
        this.running = running;
        this.libraries = libraries;
        this.dump = new FunctionDump(client, libraries);
    }

    List<CommandSpec> commands()
    {
        return List.of(
            spec("fcall", -3, (session, args, out) -> fcall(session, args, out, false)),
            spec("fcall_ro", -3, (session, args, out) -> fcall(session, args, out, true)),
            new CommandSpec("function", -2, false, null, Map.of(
                "load", spec("function|load", -3, this::load),
                "list", spec("function|list", -2, this::list),
                "delete", spec("function|delete", 3, this::delete),
                "flush", spec("function|flush", -2, this::flush),
                "kill", spec("function|kill", 2, (session, args, out) ->
                    ScriptCommands.killed(running.kill(false), out)),
                "stats", spec("function|stats", 2, this::stats),
                "dump", spec("function|dump", 2, (session, args, out) -> dump.dump(out)),
                "restore", spec("function|restore", -3, (session, args, out) -> dump.restore(args, out)),
                "help", spec("function|help", 2, (session, args, out) ->
                {
                    RespReplies.arrayHeader(out, HELP.size());
                    HELP.forEach(line -> RespReplies.simple(out, line));
                }))));
    }

    private void fcall(final Session session, final byte[][] args, final ByteBuf out, final boolean ro)
    {
        final String name = new String(args[1], StandardCharsets.UTF_8);
        final int protocol = session.protocol();
        final ScriptRun run = new ScriptRun(table, session.id(), false, name, args);
        runner.run(session, out, run, (store, tx, reply) ->
        {
            final FunctionLibraries.Library library = libraries.read(tx).byFunction().get(name);
            if (library == null)
            {
                RespReplies.error(reply, "ERR Function not found");
                return;
            }
            final long numKeys = ScriptCommands.numKeys(args, reply, "ERR Bad number of keys provided");
            final int flags = library.functions().get(name).flags();
            if (numKeys < 0 || ScriptCommands.refusedReadOnly(flags, ro, reply))
            {
                return;
            }
            run.begin(store, ScriptCommands.readOnly(flags, ro));
            final LuaTable keys = LuaSandbox.array(Arrays.copyOfRange(args, 3, 3 + (int)numKeys));
            final LuaTable argv = LuaSandbox.array(Arrays.copyOfRange(args, 3 + (int)numKeys, args.length));
            final Prototype chunk = libraries.compile(library.code(), Shebang.library(library.code()).codeFrom());
            final LuaValue value = run.execute(() ->
            {
                final LibraryLoad load = new LibraryLoad(run, chunk);
                load.running(LuaSandbox.forFunction(run));
                return load.functions().get(name).callback().call(keys, argv);
            }, reply);
            if (value != null)
            {
                run.answered(value);
                LuaToResp.write(reply, value, protocol, run.protocol());
            }
        });
    }

    private void load(final Session session, final byte[][] args, final ByteBuf out)
    {
        boolean replace = false;
        int at = 2;
        while (at < args.length - 1)
        {
            if (!ScriptCommands.isWord(args[at], "replace"))
            {
                RespReplies.error(out, "ERR Unknown option given: " + ScriptStore.text(args[at]));
                return;
            }
            replace = true;
            at++;
        }
        final byte[] code = args[at];
        final Shebang.Library meta = Shebang.library(code);
        if (meta.error() != null)
        {
            RespReplies.error(out, "ERR " + meta.error());
            return;
        }
        final boolean replacing = replace;
        final String error = client.transact(tx ->
        {
            final FunctionLibraries.Registry registry = libraries.read(tx);
            if (!replacing && registry.libraries().containsKey(meta.name()))
            {
                return "ERR Library '" + meta.name() + "' already exists";
            }
            final Prototype chunk;
            try
            {
                chunk = libraries.compile(code, meta.codeFrom());
            }
            catch (final LuaError ex)
            {
                return "ERR Error compiling function: " + ScriptErrors.compileError(ex.getMessage());
            }
            final LibraryLoad load;
            try
            {
                load = new LibraryLoad(new ScriptRun(FunctionLibraries.LOAD_TIMEOUT_NANOS), chunk);
            }
            catch (final LuaError ex)
            {
                return "ERR Error registering functions: " + registering(ex);
            }
            if (load.functions().isEmpty())
            {
                return "ERR No functions registered";
            }
            for (final String function : load.functions().keySet())
            {
                final FunctionLibraries.Library owner = registry.byFunction().get(function);
                if (owner != null && !owner.name().equals(meta.name()))
                {
                    return "ERR Function " + function + " already exists";
                }
            }
            FunctionLibraries.write(tx, registry.with(new FunctionLibraries.Library(meta.name(), code,
                load.functions())));
            return null;
        });
        if (error != null)
        {
            RespReplies.error(out, error);
            return;
        }
        RespReplies.bulk(out, meta.name());
    }

    /** @return what a library's code raised while FUNCTION LOAD ran it, as redis's luaExtractErrorInformation. */
    private static String registering(final LuaError error)
    {
        if (error.getMessageObject() instanceof LuaTable table)
        {
            return table.get("err").optjstring("ERR");
        }
        return "ERR " + ScriptErrors.text(String.valueOf(error.getMessage()));
    }

    private void list(final Session session, final byte[][] args, final ByteBuf out)
    {
        boolean withCode = false;
        byte[] pattern = null;
        for (int i = 2; i < args.length; i++)
        {
            if (!withCode && ScriptCommands.isWord(args[i], "withcode"))
            {
                withCode = true;
            }
            else if (pattern == null && ScriptCommands.isWord(args[i], "libraryname"))
            {
                if (i >= args.length - 1)
                {
                    RespReplies.error(out, "ERR library name argument was not given");
                    return;
                }
                pattern = args[++i];
            }
            else
            {
                RespReplies.error(out, "ERR Unknown argument " + ScriptStore.text(args[i]));
                return;
            }
        }
        final KeyPattern matcher = pattern == null ? null : KeyPattern.ignoringCase(pattern);
        final List<FunctionLibraries.Library> listed = new ArrayList<>();
        for (final FunctionLibraries.Library library : client.transact(libraries::read).libraries().values())
        {
            if (matcher == null || matcher.matches(library.name().getBytes(StandardCharsets.UTF_8)))
            {
                listed.add(library);
            }
        }
        final int protocol = session.protocol();
        RespReplies.arrayHeader(out, listed.size());
        for (final FunctionLibraries.Library library : listed)
        {
            RespReplies.mapHeader(out, withCode ? 4 : 3, protocol);
            RespReplies.bulk(out, "library_name");
            RespReplies.bulk(out, library.name());
            RespReplies.bulk(out, "engine");
            RespReplies.bulk(out, "LUA");
            RespReplies.bulk(out, "functions");
            RespReplies.arrayHeader(out, library.functions().size());
            for (final LibraryLoad.Registered function : library.functions().values())
            {
                RespReplies.mapHeader(out, 3, protocol);
                RespReplies.bulk(out, "name");
                RespReplies.bulk(out, function.name());
                RespReplies.bulk(out, "description");
                RespReplies.bulkOrNull(out, function.description() == null ? null :
                    function.description().getBytes(StandardCharsets.UTF_8), protocol);
                RespReplies.bulk(out, "flags");
                final List<String> flags = new ArrayList<>();
                for (int f = 0; f < Shebang.FLAG_NAMES.size(); f++)
                {
                    if ((function.flags() & 1 << f) != 0)
                    {
                        flags.add(Shebang.FLAG_NAMES.get(f));
                    }
                }
                RespReplies.setHeader(out, flags.size(), protocol);
                flags.forEach(flag -> RespReplies.simple(out, flag));
            }
            if (withCode)
            {
                RespReplies.bulk(out, "library_code");
                RespReplies.bulk(out, library.code());
            }
        }
    }

    private void delete(final Session session, final byte[][] args, final ByteBuf out)
    {
        final String name = new String(args[2], StandardCharsets.UTF_8);
        final boolean deleted = client.transact(tx ->
        {
            final FunctionLibraries.Registry registry = libraries.read(tx);
            if (!registry.libraries().containsKey(name))
            {
                return false;
            }
            FunctionLibraries.write(tx, registry.without(name));
            return true;
        });
        if (deleted)
        {
            RespReplies.ok(out);
        }
        else
        {
            RespReplies.error(out, "ERR Library not found");
        }
    }

    private void flush(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (args.length > 3)
        {
            RespReplies.error(out, "ERR unknown subcommand or wrong number of arguments for '" +
                ScriptStore.text(args[1]) + "'. Try FUNCTION HELP.");
            return;
        }
        if (args.length == 3 && !ScriptCommands.isWord(args[2], "sync") && !ScriptCommands.isWord(args[2], "async"))
        {
            RespReplies.error(out, "ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
            return;
        }
        client.transact(tx ->
        {
            tx.remove(FunctionLibraries.KEY);
            return null;
        });
        RespReplies.ok(out);
    }

    private void stats(final Session session, final byte[][] args, final ByteBuf out)
    {
        final ScriptRun late = running.late();
        if (late != null && late.eval())
        {
            RespReplies.error(out, RunningScripts.SLOW_EVAL);
            return;
        }
        final FunctionLibraries.Registry registry = client.transact(libraries::read);
        final int protocol = session.protocol();
        RespReplies.mapHeader(out, 2, protocol);
        RespReplies.bulk(out, "running_script");
        if (late == null)
        {
            RespReplies.nullReply(out, protocol);
        }
        else
        {
            RespReplies.mapHeader(out, 3, protocol);
            RespReplies.bulk(out, "name");
            RespReplies.bulk(out, late.name());
            RespReplies.bulk(out, "command");
            RespReplies.arrayHeader(out, late.request().length);
            for (final byte[] arg : late.request())
            {
                RespReplies.bulk(out, arg);
            }
            RespReplies.bulk(out, "duration_ms");
            RespReplies.integer(out, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - late.startedNanos()));
        }
        RespReplies.bulk(out, "engines");
        RespReplies.mapHeader(out, 1, protocol);
        RespReplies.bulk(out, "LUA");
        RespReplies.mapHeader(out, 2, protocol);
        RespReplies.bulk(out, "libraries_count");
        RespReplies.integer(out, registry.libraries().size());
        RespReplies.bulk(out, "functions_count");
        RespReplies.integer(out, registry.byFunction().size());
    }
}
