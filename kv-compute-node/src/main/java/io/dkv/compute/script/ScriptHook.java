package io.dkv.compute.script;

import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaFunction;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.DebugLib;

import java.util.Arrays;

/**
 * LuaJ's debug library put to two uses, as redis 7.0 uses Lua's hooks: at every instruction the run may be stopped
 * (SCRIPT KILL, FUNCTION KILL, a store conflict that runs the script again, FUNCTION LOAD's time limit), which a
 * script's pcall cannot swallow as the next instruction stops it again; and it keeps the line of the last instruction
 * the script ran, the one an error was raised on, for the error reply ("script: ..., on @user_script:1."), as
 * redis's error handler finds it with debug.getinfo (LuaJ drops a frame that tail-calls, so the line is kept here,
 * not read from the stack). LuaJ's stack traceback is left out of error messages. Scripts never see the library.
 */
final class ScriptHook extends DebugLib
{
    private final ScriptRun run;
    private Prototype[] running = new Prototype[16];
    private int depth;
    private Prototype last;
    private String source;
    private int line;

    ScriptHook(final ScriptRun run)
    {
        this.run = run;
    }

    public void onCall(final LuaFunction function)
    {
        super.onCall(function);
        push(null);
    }

    public void onCall(final LuaClosure closure, final Varargs varargs, final LuaValue[] stack)
    {
        super.onCall(closure, varargs, stack);
        push(closure.p);
    }

    public void onReturn()
    {
        super.onReturn();
        if (depth > 0)
        {
            running[--depth] = null;
        }
    }

    public void onInstruction(final int pc, final Varargs v, final int top)
    {
        super.onInstruction(pc, v, top);
        final Prototype prototype = depth > 0 ? running[depth - 1] : null;
        if (prototype != null && prototype.lineinfo != null && pc < prototype.lineinfo.length)
        {
            line = prototype.lineinfo[pc];
            if (prototype != last)
            {
                last = prototype;
                source = prototype.source.tojstring();
            }
        }
        run.checkpoint();
    }

    public String traceback(final int level)
    {
        return "";
    }

    /** @return the chunk of the last instruction run ("@user_script"), or null when none ran. */
    String source()
    {
        return source;
    }

    /** @return the line of the last instruction run. */
    int line()
    {
        return line;
    }

    private void push(final Prototype prototype)
    {
        if (depth == running.length)
        {
            running = Arrays.copyOf(running, depth * 2);
        }
        running[depth++] = prototype;
    }
}
