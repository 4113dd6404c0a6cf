package io.dkv.compute.script;

import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.compiler.LuaC;
import org.luaj.vm2.lib.BaseLib;
import org.luaj.vm2.lib.MathLib;
import org.luaj.vm2.lib.PackageLib;
import org.luaj.vm2.lib.StringLib;
import org.luaj.vm2.lib.TableLib;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The globals a script runs with, fresh for every run (so nothing a run leaves is seen by the next, a conflict's
 * re-run included), as redis 7.0's sandbox: Lua's base library without print, dofile and loadfile (and no os, io,
 * package or debug), string, table, math (math.random redis's rand48), bit, cjson and cmsgpack, the redis API, redis's
 * pcall (an error table's err string); every table locked (a write answers "Attempt to modify a readonly table") and a
 * global that does not exist an error to read. LuaJ is Lua 5.2: unpack and loadstring are given as 5.1 had them;
 * binary chunks do not load; tostring and table.concat write numbers as 5.1 does ({@link LuaNumbers}). The libraries
 * but cjson (whose settings are a run's) hold no state of a run's, so they are built once and shared.
 */
final class LuaSandbox
{
    private static final LockedTable STRING;
    private static final LockedTable TABLE;
    private static final LockedTable MATH;
    private static final LockedTable BIT = LockedTable.copyOf(BitLib.table());
    private static final LockedTable CMSGPACK = LockedTable.copyOf(CmsgpackLib.table());
    /** redis's rand48, one per node as redis has one per server: math.random's sequence. */
    private static final long[] RAND48 = {seed(0)};

    static
    {
        final Globals libraries = new Globals();
        libraries.load(new BaseLib());
        libraries.load(new PackageLib());
        libraries.load(new TableLib());
        libraries.load(new StringLib());
        libraries.load(new MathLib());
        STRING = LockedTable.copyOf((LuaTable)libraries.get("string"));
        final LuaTable table = (LuaTable)libraries.get("table");
        table.rawset("concat", RedisApi.function(LuaSandbox::concat));
        TABLE = LockedTable.copyOf(table);
        final LuaTable math = (LuaTable)libraries.get("math");
        math.rawset("random", RedisApi.function(LuaSandbox::random));
        math.rawset("randomseed", RedisApi.function(LuaSandbox::randomSeed));
        MATH = LockedTable.copyOf(math);
        final LockedTable stringMeta = new LockedTable();
        stringMeta.rawset(LuaValue.INDEX, STRING);
        stringMeta.lock();
        // every Lua string's methods: the locked library, so no script changes them for another
        LuaString.s_metatable = stringMeta;
    }

    private LuaSandbox()
    {
    }

    /** @return the globals of an EVAL's run, KEYS and ARGV among them, locked. */
    static SandboxGlobals forEval(final ScriptRun run, final byte[][] keys, final byte[][] argv)
    {
        final SandboxGlobals globals = base(run, true);
        globals.rawset("KEYS", array(keys));
        globals.rawset("ARGV", array(argv));
        protect(globals);
        return globals;
    }

    /** @return the globals a function's body runs with, locked: no KEYS or ARGV, which it is given. */
    static SandboxGlobals forFunction(final ScriptRun run)
    {
        final SandboxGlobals globals = base(run, false);
        protect(globals);
        return globals;
    }

    /** @return a Lua array of the strings. */
    static LuaTable array(final byte[][] values)
    {
        final LuaTable table = new LuaTable(values.length, 0);
        for (int i = 0; i < values.length; i++)
        {
            table.rawset(i + 1, LuaString.valueUsing(values[i]));
        }
        return table;
    }

    /** Lock the globals, a read of one that does not exist raising redis's error. */
    static void protect(final SandboxGlobals globals)
    {
        globals.setmetatable(missingIsError());
        globals.lock();
    }

    /** @return a locked metatable whose __index raises redis's error for a global that does not exist. */
    static LockedTable missingIsError()
    {
        final LockedTable meta = new LockedTable();
        meta.rawset(LuaValue.INDEX, RedisApi.function(args ->
        {
            throw new LuaError("Script attempted to access nonexistent global variable '" + args.arg(2).tojstring() +
                "'");
        }));
        meta.lock();
        return meta;
    }

    /** @param userCode true when the globals are those the user's code runs with (its errors' lines noted). */
    private static SandboxGlobals base(final ScriptRun run, final boolean userCode)
    {
        final SandboxGlobals globals = new SandboxGlobals();
        globals.load(new BaseLib());
        LuaC.install(globals);
        globals.rawset("print", LuaValue.NIL);
        globals.rawset("dofile", LuaValue.NIL);
        globals.rawset("loadfile", LuaValue.NIL);
        globals.rawset("pcall", RedisApi.function(args -> pcall(run, args)));
        globals.rawset("loadstring", globals.get("load"));
        final LuaValue tostring = globals.get("tostring");
        globals.rawset("tostring", RedisApi.function(args -> args.arg1().type() == LuaValue.TNUMBER ?
            LuaValue.valueOf(LuaNumbers.format(args.arg1().todouble())) : tostring.invoke(args)));
        globals.rawset("unpack", TABLE.get("unpack"));
        globals.rawset("string", STRING);
        globals.rawset("table", TABLE);
        globals.rawset("math", MATH);
        globals.rawset("bit", BIT);
        globals.rawset("cmsgpack", CMSGPACK);
        globals.rawset("cjson", LockedTable.copyOf(new CjsonLib().table()));
        globals.rawset("redis", LockedTable.copyOf(RedisApi.forRun(run)));
        hook(globals, run, userCode);
        return globals;
    }

    /**
     * Give the globals' closures the run's hook (LuaJ's debug library, which needs a package table to load); the
     * hook of the globals the user's code runs with also tells the lines of its errors.
     */
    static void hook(final SandboxGlobals globals, final ScriptRun run, final boolean userCode)
    {
        final LuaTable packages = new LuaTable();
        packages.rawset("loaded", new LuaTable());
        globals.rawset("package", packages);
        final ScriptHook hook = new ScriptHook(run);
        globals.load(hook);
        if (userCode)
        {
            run.hook(hook);
        }
        globals.rawset("debug", LuaValue.NIL);
        globals.rawset("package", LuaValue.NIL);
    }

    /** redis's pcall: Lua's, but an error raised as a table with an err string gives that string. */
    private static Varargs pcall(final ScriptRun run, final Varargs args)
    {
        final LuaValue function = args.checkvalue(1);
        try
        {
            return LuaValue.varargsOf(LuaValue.TRUE, function.invoke(args.subargs(2)));
        }
        catch (final LuaError ex)
        {
            if (run.stopped())
            {
                throw ex;
            }
            return LuaValue.varargsOf(LuaValue.FALSE, ScriptErrors.caught(ex));
        }
        catch (final StackOverflowError ex)
        {
            return LuaValue.varargsOf(LuaValue.FALSE, LuaValue.valueOf("stack overflow"));
        }
    }

    /** table.concat, its numbers written as Lua 5.1 writes them. */
    private static Varargs concat(final Varargs args)
    {
        final LuaTable list = args.checktable(1);
        final byte[] separator = args.isnoneornil(2) ? new byte[0] : LuaToResp.bytes(args.checkstring(2));
        final int first = args.optint(3, 1);
        final int last = args.isnoneornil(4) ? list.length() : args.checkint(4);
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = first; i <= last; i++)
        {
            final LuaValue item = list.rawget(i);
            if (item.type() == LuaValue.TNUMBER)
            {
                out.writeBytes(LuaNumbers.format(item.todouble()).getBytes(StandardCharsets.US_ASCII));
            }
            else if (item.type() == LuaValue.TSTRING)
            {
                out.writeBytes(LuaToResp.bytes(item));
            }
            else
            {
                throw new LuaError("invalid value (at index " + i + ") in table for 'concat'");
            }
            if (i < last)
            {
                out.writeBytes(separator);
            }
        }
        return LuaString.valueUsing(out.toByteArray());
    }

    private static Varargs random(final Varargs args)
    {
        final double r = (next() % Integer.MAX_VALUE) / (double)Integer.MAX_VALUE;
        return switch (args.narg())
        {
            case 0 -> LuaValue.valueOf(r);
            case 1 ->
            {
                final int upper = args.checkint(1);
                emptyInterval(1 > upper, 1);
                yield LuaValue.valueOf(Math.floor(r * upper) + 1);
            }
            case 2 ->
            {
                final int lower = args.checkint(1);
                final int upper = args.checkint(2);
                emptyInterval(lower > upper, 2);
                yield LuaValue.valueOf(Math.floor(r * (upper - lower + 1)) + lower);
            }
            default -> throw new LuaError("wrong number of arguments");
        };
    }

    private static void emptyInterval(final boolean empty, final int argument)
    {
        if (empty)
        {
            throw new LuaError("bad argument #" + argument + " to 'random' (interval is empty)");
        }
    }

    private static Varargs randomSeed(final Varargs args)
    {
        final int seed = args.checkint(1);
        synchronized (RAND48)
        {
            RAND48[0] = seed(seed);
        }
        return LuaValue.NONE;
    }

    /** @return rand48's state after redisSrand48(seed). */
    private static long seed(final int seed)
    {
        return ((long)seed << 16 | 0x330E) & 0xFFFF_FFFF_FFFFL;
    }

    /** @return redisLrand48's next value: the top 31 bits of the 48-bit state. */
    private static long next()
    {
        synchronized (RAND48)
        {
            RAND48[0] = (RAND48[0] * 0x5DEECE66DL + 0xB) & 0xFFFF_FFFF_FFFFL;
            return RAND48[0] >>> 17;
        }
    }
}
