package io.dkv.compute.script;

import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaValue;

/**
 * A script's globals, locked once the sandbox is built as redis 7.0 locks its globals: writing one (a new name or an
 * old) or replacing their metatable answers "Attempt to modify a readonly table".
 */
final class SandboxGlobals extends Globals
{
    private boolean locked;

    void lock()
    {
        locked = true;
    }

    public void rawset(final int key, final LuaValue value)
    {
        LockedTable.refuseWhenLocked(locked);
        super.rawset(key, value);
    }

    public void rawset(final LuaValue key, final LuaValue value)
    {
        LockedTable.refuseWhenLocked(locked);
        super.rawset(key, value);
    }

    public void hashset(final LuaValue key, final LuaValue value)
    {
        LockedTable.refuseWhenLocked(locked);
        super.hashset(key, value);
    }

    public LuaValue setmetatable(final LuaValue metatable)
    {
        LockedTable.refuseInLibrary(locked);
        return super.setmetatable(metatable);
    }

    public LuaValue remove(final int pos)
    {
        LockedTable.refuseInLibrary(locked);
        return super.remove(pos);
    }

    public void insert(final int pos, final LuaValue value)
    {
        LockedTable.refuseInLibrary(locked);
        super.insert(pos, value);
    }
}
