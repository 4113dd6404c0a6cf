package io.dkv.compute.script;

import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.function.Function;

/**
 * The {@code redis} table a script sees, as redis 7.0's luaRegisterRedisAPI makes it: call, pcall, error_reply,
 * status_reply, sha1hex, setresp, log and its levels (accepted and checked; dkv keeps no script log), set_repl and its
 * flags (accepted: dkv replicates by its own protocol), replicate_commands, breakpoint and debug (no debugger),
 * acl_check_cmd, the version; and the one a library sees while FUNCTION LOAD runs it: register_function, log and the
 * version only.
 */
final class RedisApi
{
    static final String VERSION = "7.0.15";
    static final int VERSION_NUM = 0x0007000f;

    private RedisApi()
    {
    }

    /** @return the API of a running script or function. */
    static LuaTable forRun(final ScriptRun run)
    {
        final LuaTable redis = new LuaTable();
        redis.rawset("call", function(args -> run.call(args, true)));
        redis.rawset("pcall", function(args -> run.call(args, false)));
        redis.rawset("sha1hex", function(RedisApi::sha1hex));
        redis.rawset("error_reply", function(RedisApi::errorReply));
        redis.rawset("status_reply", function(RedisApi::statusReply));
        redis.rawset("setresp", function(args -> setResp(run, args)));
        redis.rawset("set_repl", function(RedisApi::setRepl));
        redis.rawset("replicate_commands", function(args -> LuaValue.TRUE));
        redis.rawset("breakpoint", function(args -> LuaValue.FALSE));
        redis.rawset("debug", function(args -> LuaValue.NONE));
        redis.rawset("acl_check_cmd", function(args -> aclCheck(run, args)));
        redis.rawset("REPL_NONE", 0);
        redis.rawset("REPL_AOF", 1);
        redis.rawset("REPL_SLAVE", 2);
        redis.rawset("REPL_REPLICA", 2);
        redis.rawset("REPL_ALL", 3);
        logAndVersion(redis);
        return redis;
    }

    /** @return the API of a library being loaded, around its register_function. */
    static LuaTable forLoad(final LuaValue registerFunction)
    {
        final LuaTable redis = new LuaTable();
        redis.rawset("register_function", registerFunction);
        logAndVersion(redis);
        return redis;
    }

    private static void logAndVersion(final LuaTable redis)
    {
        redis.rawset("log", function(RedisApi::log));
        redis.rawset("LOG_DEBUG", 0);
        redis.rawset("LOG_VERBOSE", 1);
        redis.rawset("LOG_NOTICE", 2);
        redis.rawset("LOG_WARNING", 3);
        redis.rawset("REDIS_VERSION_NUM", VERSION_NUM);
        redis.rawset("REDIS_VERSION", VERSION);
    }

    static VarArgFunction function(final Function<Varargs, Varargs> body)
    {
        return new VarArgFunction()
        {
            public Varargs invoke(final Varargs args)
            {
                return body.apply(args);
            }
        };
    }

    static String sha1hex(final byte[] bytes)
    {
        try
        {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(bytes));
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("the JDK has no SHA-1, which every JDK must have", ex);
        }
    }

    private static Varargs sha1hex(final Varargs args)
    {
        if (args.narg() != 1)
        {
            throw ScriptErrors.raise("wrong number of arguments");
        }
        final LuaValue value = args.arg1();
        final byte[] bytes = value.isstring() ? LuaToResp.bytes(value) : new byte[0];
        return LuaValue.valueOf(sha1hex(bytes));
    }

    private static Varargs errorReply(final Varargs args)
    {
        if (args.narg() != 1 || args.arg1().type() != LuaValue.TSTRING)
        {
            return ScriptErrors.table("wrong number or type of arguments");
        }
        final String error = new String(LuaToResp.bytes(args.arg1()), StandardCharsets.ISO_8859_1);
        return ScriptErrors.table(error.startsWith("-") ? error : "-" + error);
    }

    private static Varargs statusReply(final Varargs args)
    {
        if (args.narg() != 1 || args.arg1().type() != LuaValue.TSTRING)
        {
            return ScriptErrors.table("wrong number or type of arguments");
        }
        final LuaTable status = new LuaTable();
        status.rawset("ok", args.arg1());
        return status;
    }

    private static Varargs setResp(final ScriptRun run, final Varargs args)
    {
        if (args.narg() != 1)
        {
            throw ScriptErrors.raise("redis.setresp() requires one argument.");
        }
        final int protocol = (int)args.arg1().optdouble(0);
        if (protocol != 2 && protocol != 3)
        {
            throw ScriptErrors.raise("RESP version must be 2 or 3.");
        }
        run.protocol(protocol);
        return LuaValue.NONE;
    }

    private static Varargs setRepl(final Varargs args)
    {
        if (args.narg() != 1)
        {
            throw ScriptErrors.raise("redis.set_repl() requires two arguments.");
        }
        final int flags = (int)args.arg1().optdouble(0);
        if ((flags & ~3) != 0)
        {
            throw ScriptErrors.raise("Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
        }
        return LuaValue.NONE;
    }

    private static Varargs aclCheck(final ScriptRun run, final Varargs args)
    {
        if (args.narg() == 0)
        {
            throw ScriptErrors.raise("Please specify at least one argument for this redis lib call");
        }
        if (!run.knows(args))
        {
            throw ScriptErrors.raise("Invalid command passed to redis.acl_check_cmd()");
        }
        return LuaValue.TRUE;
    }

    private static Varargs log(final Varargs args)
    {
        if (args.narg() < 2)
        {
            throw ScriptErrors.raise("redis.log() requires two arguments or more.");
        }
        if (!args.arg1().isnumber())
        {
            throw ScriptErrors.raise("First argument must be a number (log level).");
        }
        final int level = (int)args.arg1().todouble();
        if (level < 0 || level > 3)
        {
            throw ScriptErrors.raise("Invalid debug level.");
        }
        return LuaValue.NONE;
    }
}
