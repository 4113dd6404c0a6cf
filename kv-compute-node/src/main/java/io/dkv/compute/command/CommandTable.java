package io.dkv.compute.command;

import io.netty.buffer.ByteBuf;
import io.dkv.compute.resp.RespReplies;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Finds a request's command and runs it, refusing it first as redis-server 7 does and in its order: an unknown command
 * or subcommand, then a wrong number of arguments, then a connection that has not authenticated.
 */
public final class CommandTable
{
    /**
     * Commands redis has that this node does not serve yet: they get an error naming them rather than redis's unknown
     * command error, so that a client sees what is missing.
     */
    static final Set<String> NOT_YET = Set.of(
        "setrange", "getrange", "substr", "incrbyfloat", "lcs", "keys", "scan", "type", "rename", "renamenx", "unlink",
        "touch", "dbsize", "flushdb", "flushall", "randomkey", "copy", "move", "object", "dump", "restore", "wait",
        "watch", "unwatch", "multi", "exec", "discard", "subscribe", "unsubscribe", "publish", "psubscribe",
        "punsubscribe", "eval", "evalsha", "script", "function", "fcall", "asking", "save", "bgsave", "bgrewriteaof",
        "lastsave", "shutdown", "monitor", "slowlog", "latency", "memory", "debug", "acl", "time", "role", "replicaof",
        "slaveof", "reset", "lpush", "rpush", "lpop", "rpop", "lrange", "llen", "hset", "hget", "hgetall", "hdel",
        "hmset", "hmget", "hincrby", "sadd", "srem", "smembers", "sismember", "scard", "zadd", "zrange", "zrem",
        "zscore", "zcard", "xadd", "xread", "xrange", "pfadd", "pfcount", "setbit", "getbit", "bitcount", "sort",
        "geoadd", "swapdb");

    private final Map<String, CommandSpec> commands = new HashMap<>();
    private final CommandEnvironment environment;

    public CommandTable(final CommandEnvironment environment)
    {
        this.environment = environment;
        add(new ConnectionCommands(environment).commands());
        add(new StringCommands(environment.client()).commands());
        add(new SetCommand(environment.client()).commands());
        add(new CounterCommands(environment.client()).commands());
        add(new ExpireCommands(environment.client()).commands());
        add(new ServerCommands(environment, this).commands());
        add(new ClusterCommands(environment.cluster()).commands());
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

    /** @return the commands served, for COMMAND. */
    Collection<CommandSpec> commands()
    {
        return commands.values();
    }

    /**
     * Run one request and write its reply.
     *
     * @param session the connection's state.
     * @param args    the request: its name and arguments, at least one.
     * @param out     where the reply goes.
     */
    public void execute(final Session session, final byte[][] args, final ByteBuf out)
    {
        final String name = lowerCase(args[0]);
        CommandSpec spec = commands.get(name);
        if (spec == null)
        {
            RespReplies.error(out, NOT_YET.contains(name) ?
                "ERR command '" + name.toUpperCase() + "' is not supported by this dkv compute node yet" :
                unknownCommand(args));
            return;
        }
        if (spec.subcommands() != null && args.length >= 2)
        {
            final CommandSpec sub = spec.subcommands().get(lowerCase(args[1]));
            if (sub == null)
            {
                RespReplies.error(out, "ERR unknown subcommand '" + Errors.text128(args[1]) + "'. Try " +
                    Errors.text(args[0]).toUpperCase() + " HELP.");
                return;
            }
            spec = sub;
        }
        if (!spec.arityFits(args.length))
        {
            RespReplies.error(out, Errors.arity(spec.name()));
            return;
        }
        if (!session.authenticated() && !spec.noAuth())
        {
            RespReplies.error(out, Errors.NOAUTH);
            return;
        }
        environment.stats().command();
        try
        {
            spec.handler().execute(session, args, out);
        }
        catch (final IllegalArgumentException ex)
        {
            // the client refused a key or value before touching the store (e.g. an empty key, which dkv has not)
            RespReplies.error(out, "ERR " + ex.getMessage());
        }
        catch (final RuntimeException ex)
        {
            RespReplies.error(out, "ERR dkv store error: " + ex.getMessage());
        }
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
        if (arg.length != lowerCaseWord.length())
        {
            return false;
        }
        for (int i = 0; i < arg.length; i++)
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

    static CommandSpec spec(final String name, final int arity, final CommandHandler handler)
    {
        return new CommandSpec(name, arity, false, handler, null);
    }
}
