package io.dkv.compute.script;

import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaFunction;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.Varargs;

import java.util.Map;
import java.util.TreeMap;

/**
 * One run of a library's code, as FUNCTION LOAD runs it in redis 7.0 (function_lua.c): its globals see only the load
 * API (redis.register_function, redis.log, the version) while it runs, and the full sandbox afterwards, when its
 * functions run. Redis keeps the functions a load registered; here the code runs again for every FCALL (its
 * compiled chunk shared), so that each call has globals of its own.
 */
final class LibraryLoad
{
    /** A function the library registered. */
    record Registered(String name, int flags, String description, LuaFunction callback)
    {
    }

    /** By name, in any case: redis's function names are not case sensitive. */
    private final Map<String, Registered> functions = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    private final LuaValue[] fallback = new LuaValue[1];
    private boolean loading = true;

    /**
     * Run the library's code.
     *
     * @param run   stops it (a FUNCTION LOAD past its time, a KILL of an FCALL).
     * @param chunk the library's compiled code.
     * @throws LuaError what the code raised.
     */
    LibraryLoad(final ScriptRun run, final Prototype chunk)
    {
        final SandboxGlobals globals = new SandboxGlobals();
        LuaSandbox.hook(globals, run, true);
        final LockedTable meta = new LockedTable();
        meta.rawset(LuaValue.INDEX, RedisApi.function(args -> fallback[0].get(args.arg(2))));
        meta.lock();
        globals.setmetatable(meta);
        globals.lock();
        final LuaTable redis = RedisApi.forLoad(RedisApi.function(this::register));
        redis.setmetatable(LuaSandbox.missingIsError());
        final LuaTable api = new LuaTable();
        api.rawset("redis", LockedTable.copyOf(redis));
        api.setmetatable(LuaSandbox.missingIsError());
        fallback[0] = LockedTable.copyOf(api);
        new LuaClosure(chunk, globals).call();
        loading = false;
    }

    /** @return the functions registered, by name in any case. */
    Map<String, Registered> functions()
    {
        return functions;
    }

    /** From now on the library's globals are those its functions run with. */
    void running(final SandboxGlobals runtime)
    {
        fallback[0] = runtime;
    }

    /** redis.register_function(name, callback) or redis.register_function{function_name=..., callback=...}. */
    private Varargs register(final Varargs args)
    {
        if (!loading)
        {
            // a function kept the load API and calls it when it runs
            throw ScriptErrors.raise("redis.register_function can only be called on FUNCTION LOAD command");
        }
        if (args.narg() < 1 || args.narg() > 2)
        {
            throw ScriptErrors.raise("wrong number of arguments to redis.register_function");
        }
        final Registered registered = args.narg() == 1 ? named(args.arg1()) : positional(args);
        if (!Shebang.validName(registered.name()))
        {
            throw ScriptErrors.raise("Library names can only contain letters, numbers, or underscores(_) and must " +
                "be at least one character long");
        }
        if (functions.containsKey(registered.name()))
        {
            throw ScriptErrors.raise("Function already exists in the library");
        }
        functions.put(registered.name(), registered);
        return LuaValue.NONE;
    }

    private static Registered positional(final Varargs args)
    {
        if (!args.arg1().isstring())
        {
            throw ScriptErrors.raise("first argument to redis.register_function must be a string");
        }
        if (!args.arg(2).isfunction())
        {
            throw ScriptErrors.raise("second argument to redis.register_function must be a function");
        }
        return new Registered(args.arg1().tojstring(), 0, null, (LuaFunction)args.arg(2));
    }

    private static Registered named(final LuaValue table)
    {
        if (!table.istable())
        {
            throw ScriptErrors.raise("calling redis.register_function with a single argument is only applicable to " +
                "Lua table (representing named arguments).");
        }
        String name = null;
        String description = null;
        LuaFunction callback = null;
        int flags = 0;
        for (Varargs next = table.next(LuaValue.NIL); !next.arg1().isnil(); next = table.next(next.arg1()))
        {
            if (!next.arg1().isstring())
            {
                throw ScriptErrors.raise("named argument key given to redis.register_function is not a string");
            }
            final LuaValue value = next.arg(2);
            switch (next.arg1().tojstring().toLowerCase())
            {
                case "function_name" ->
                {
                    if (!value.isstring())
                    {
                        throw ScriptErrors.raise("function_name argument given to redis.register_function must be " +
                            "a string");
                    }
                    name = value.tojstring();
                }
                case "description" ->
                {
                    if (!value.isstring())
                    {
                        throw ScriptErrors.raise("description argument given to redis.register_function must be " +
                            "a string");
                    }
                    description = value.tojstring();
                }
                case "callback" ->
                {
                    if (!value.isfunction())
                    {
                        throw ScriptErrors.raise("callback argument given to redis.register_function must be a " +
                            "function");
                    }
                    callback = (LuaFunction)value;
                }
                case "flags" -> flags = flags(value);
                default -> throw ScriptErrors.raise("unknown argument given to redis.register_function");
            }
        }
        if (name == null)
        {
            throw ScriptErrors.raise("redis.register_function must get a function name argument");
        }
        if (callback == null)
        {
            throw ScriptErrors.raise("redis.register_function must get a callback argument");
        }
        return new Registered(name, flags, description, callback);
    }

    private static int flags(final LuaValue list)
    {
        if (!list.istable())
        {
            throw ScriptErrors.raise("flags argument to redis.register_function must be a table representing " +
                "function flags");
        }
        int flags = 0;
        for (Varargs next = list.next(LuaValue.NIL); !next.arg1().isnil(); next = list.next(next.arg1()))
        {
            final int flag = next.arg(2).type() == LuaValue.TSTRING ? Shebang.flag(next.arg(2).tojstring()) : 0;
            if (flag == 0)
            {
                throw ScriptErrors.raise("unknown flag given");
            }
            flags |= flag;
        }
        return flags;
    }
}
