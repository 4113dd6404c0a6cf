package io.dkv.load.check.store;

import java.util.List;

/**
 * A store that runs scripts, as compute nodes run redis's EVAL: each one atomically over the keys it names, on any
 * memory nodes. A client of the driver has no such form, so only the RESP store is one.
 */
public interface ScriptStore
{
    /**
     * Run a Lua script (EVAL, or EVAL_RO when it only reads).
     *
     * @return its reply: bytes for a bulk string, a Long for an integer, a List for an array, null for nil.
     */
    Object eval(String script, boolean readOnly, List<String> keys, List<String> args);

    /**
     * @return the store as one that runs scripts.
     * @throws IllegalArgumentException naming the store when it runs none.
     */
    static ScriptStore of(final CheckedStore store)
    {
        if (store instanceof ScriptStore scripts)
        {
            return scripts;
        }
        throw new IllegalArgumentException("scripts need a store that runs them (RESP to compute nodes): " +
            store.getClass().getSimpleName() + " does not");
    }
}
