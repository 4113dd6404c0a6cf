package io.dkv.compute.script;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

/**
 * A Lua table a script may read and not change once locked, as the tables redis 7.0 makes read-only (its patched Lua's
 * lua_enablereadonlytable): the libraries, the redis API, their metatables. A change answers redis's error.
 */
final class LockedTable extends LuaTable
{
    static final String READONLY = "Attempt to modify a readonly table";

    private boolean locked;

    /** @return a locked copy of {@code table}'s entries and metatable, the tables among them copied and locked too. */
    static LockedTable copyOf(final LuaTable table)
    {
        final LockedTable copy = new LockedTable();
        for (Varargs next = table.next(LuaValue.NIL); !next.arg1().isnil(); next = table.next(next.arg1()))
        {
            final LuaValue value = next.arg(2);
            copy.rawset(next.arg1(), value instanceof LuaTable inner && !(inner instanceof LockedTable) ?
                copyOf(inner) : value);
        }
        final LuaValue metatable = table.getmetatable();
        if (metatable instanceof LuaTable meta)
        {
            copy.setmetatable(meta instanceof LockedTable ? meta : copyOf(meta));
        }
        copy.lock();
        return copy;
    }

    void lock()
    {
        locked = true;
    }

    public void rawset(final int key, final LuaValue value)
    {
        refuseWhenLocked(locked);
        super.rawset(key, value);
    }

    public void rawset(final LuaValue key, final LuaValue value)
    {
        refuseWhenLocked(locked);
        super.rawset(key, value);
    }

    public void hashset(final LuaValue key, final LuaValue value)
    {
        refuseWhenLocked(locked);
        super.hashset(key, value);
    }

    public LuaValue setmetatable(final LuaValue metatable)
    {
        refuseInLibrary(locked);
        return super.setmetatable(metatable);
    }

    public LuaValue remove(final int pos)
    {
        refuseInLibrary(locked);
        return super.remove(pos);
    }

    public void insert(final int pos, final LuaValue value)
    {
        refuseInLibrary(locked);
        super.insert(pos, value);
    }

    public void sort(final LuaValue comparator)
    {
        refuseInLibrary(locked);
        super.sort(comparator);
    }

    /** A change by the script's own code: its message carries the script's line, as Lua's VM gives it. */
    static void refuseWhenLocked(final boolean locked)
    {
        if (locked)
        {
            throw new LuaError(READONLY);
        }
    }

    /** A change by a library function (setmetatable, table.insert): Lua gives C functions' errors no line. */
    static void refuseInLibrary(final boolean locked)
    {
        if (locked)
        {
            throw new UnplacedError(READONLY);
        }
    }

    /** An error whose message LuaJ does not prefix with the script's line. */
    static final class UnplacedError extends LuaError
    {
        private final String message;

        UnplacedError(final String message)
        {
            super(message);
            this.message = message;
        }

        public String getMessage()
        {
            return message;
        }
    }
}
