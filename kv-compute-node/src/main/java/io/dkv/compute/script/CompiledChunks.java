package io.dkv.compute.script;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.compiler.LuaC;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The node's compiled Lua, by the sha1 of the source and the chunk's name: compiling is the costly part of a run, and a
 * prototype is immutable, so every run on any thread makes its closure from the same one. The least recently used go
 * past {@link #CAPACITY}. Thread-safe.
 */
final class CompiledChunks
{
    static final int CAPACITY = 4096;

    private final Map<String, Prototype> chunks = new LinkedHashMap<>(256, 0.75f, true)
    {
        protected boolean removeEldestEntry(final Map.Entry<String, Prototype> eldest)
        {
            return size() > CAPACITY;
        }
    };

    /**
     * @param sha       the sha1 of {@code source}.
     * @param source    Lua source.
     * @param chunkName "@user_script" or "@user_function", as redis names its chunks in errors.
     * @return the compiled chunk.
     * @throws LuaError when it does not compile: its message is Lua's ("user_script:1: ...").
     */
    Prototype compile(final String sha, final byte[] source, final int from, final String chunkName)
    {
        final String key = chunkName + ':' + sha;
        synchronized (chunks)
        {
            final Prototype known = chunks.get(key);
            if (known != null)
            {
                return known;
            }
        }
        final Prototype compiled;
        try
        {
            compiled = LuaC.instance.compile(new ByteArrayInputStream(source, from, source.length - from), chunkName);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read a script held in memory", ex);
        }
        synchronized (chunks)
        {
            chunks.put(key, compiled);
        }
        return compiled;
    }
}
