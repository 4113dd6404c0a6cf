package io.dkv.compute.script;

import io.dkv.client.txn.LogicalValue;
import io.dkv.client.txn.Transaction;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.ReservedKeys;
import org.luaj.vm2.Prototype;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The function libraries every compute node serves: one record in the store, at the named key
 * {@code \x00dkv\x00functions} ({@link ReservedKeys#namedKey}), holding each library's name and code; FUNCTION LOAD,
 * DELETE and FLUSH change it in a transaction, and FCALL reads it in its own, so a call sees the libraries of one
 * instant and fails its commit if they changed meanwhile. What a library registers is learnt by running its code
 * (compiled once per node); the node keeps the last record it read with what it learnt from it, so that an FCALL with
 * no change compares bytes and runs nothing more. Thread-safe.
 */
final class FunctionLibraries
{
    /** FUNCTION LOAD's time to run a library's code, as redis's LOAD_TIMEOUT_MS. */
    static final long LOAD_TIMEOUT_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    static final byte[] KEY = ReservedKeys.namedKey("functions");

    /** A library: its name, its code (shebang included) and the functions its code registers, by name. */
    record Library(String name, byte[] code, Map<String, LibraryLoad.Registered> functions)
    {
        Library
        {
            final Map<String, LibraryLoad.Registered> byName = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
            byName.putAll(functions);
            functions = Collections.unmodifiableMap(byName);
        }
    }

    /** The libraries of one record, by name (sorted, as FUNCTION LIST gives them), and by their functions' names. */
    record Registry(byte[] record, Map<String, Library> libraries, Map<String, Library> byFunction)
    {
        static final Registry EMPTY = new Registry(new byte[0], Map.of(), Map.of());

        /** @return the record of these libraries with {@code library} in place of the one of its name, if any. */
        byte[] with(final Library library)
        {
            final Map<String, Library> changed = new TreeMap<>(libraries);
            changed.put(library.name(), library);
            return encode(changed);
        }

        /** @return the record of these libraries with {@code others}, in place of those of their names. */
        byte[] with(final Collection<Library> others)
        {
            final Map<String, Library> changed = new TreeMap<>(libraries);
            others.forEach(library -> changed.put(library.name(), library));
            return encode(changed);
        }

        /** @return the record of these libraries without the one named. */
        byte[] without(final String name)
        {
            final Map<String, Library> changed = new TreeMap<>(libraries);
            changed.remove(name);
            return encode(changed);
        }
    }

    private final CompiledChunks chunks;
    private volatile Registry cached = Registry.EMPTY;

    FunctionLibraries(final CompiledChunks chunks)
    {
        this.chunks = chunks;
    }

    /** @return the libraries as the transaction reads them. */
    Registry read(final Transaction tx)
    {
        final LogicalValue value = tx.read(KEY);
        final byte[] record = value == null ? new byte[0] : value.value();
        final Registry known = cached;
        if (Arrays.equals(known.record(), record))
        {
            return known;
        }
        final Registry read = parse(record);
        cached = read;
        return read;
    }

    /** Write the record in the transaction (none when it holds no library). */
    static void write(final Transaction tx, final byte[] record)
    {
        if (record.length <= Integer.BYTES)
        {
            tx.remove(KEY);
        }
        else if (record.length > KvBlockLayout.MAX_VALUE_LENGTH)
        {
            throw new IllegalArgumentException("the function libraries would take " + record.length + " bytes; " +
                "dkv keeps at most " + KvBlockLayout.MAX_VALUE_LENGTH + " bytes of them");
        }
        else
        {
            tx.write(KEY, record, ScriptStore.WORD);
        }
    }

    /** @return the compiled code of a library, its shebang line left out (its line break kept). */
    Prototype compile(final byte[] code, final int from)
    {
        return chunks.compile(ScriptStore.sha(code), code, from, "@user_function");
    }

    /**
     * @return the libraries of a record, each library's code run to learn its functions.
     * @throws RuntimeException for a record that is not one (a payload given to FUNCTION RESTORE).
     */
    Registry parse(final byte[] record)
    {
        if (record.length == 0)
        {
            return Registry.EMPTY;
        }
        final ByteBuffer in = ByteBuffer.wrap(record);
        final Map<String, Library> libraries = new TreeMap<>();
        final Map<String, Library> byFunction = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        final int count = in.getInt();
        for (int i = 0; i < count; i++)
        {
            final byte[] name = new byte[in.getInt()];
            in.get(name);
            final byte[] code = new byte[in.getInt()];
            in.get(code);
            final Shebang.Library meta = Shebang.library(code);
            // every library here loaded once (FUNCTION LOAD checked it), so it loads again
            final LibraryLoad load = new LibraryLoad(new ScriptRun(Long.MAX_VALUE / 2), compile(code, meta.codeFrom()));
            final Library library = new Library(new String(name, StandardCharsets.UTF_8), code, load.functions());
            libraries.put(library.name(), library);
            library.functions().keySet().forEach(function -> byFunction.put(function, library));
        }
        return new Registry(record, Collections.unmodifiableMap(libraries), Collections.unmodifiableMap(byFunction));
    }

    private static byte[] encode(final Map<String, Library> libraries)
    {
        int length = Integer.BYTES;
        for (final Library library : libraries.values())
        {
            length += 2 * Integer.BYTES + library.name().getBytes(StandardCharsets.UTF_8).length +
                library.code().length;
        }
        final ByteBuffer out = ByteBuffer.allocate(length);
        out.putInt(libraries.size());
        for (final Library library : libraries.values())
        {
            final byte[] name = library.name().getBytes(StandardCharsets.UTF_8);
            out.putInt(name.length).put(name).putInt(library.code().length).put(library.code());
        }
        return out.array();
    }
}
