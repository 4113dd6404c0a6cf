package io.dkv.compute.script;

import io.dkv.client.KvClient;
import io.dkv.client.keyspace.ScanCursor;
import io.dkv.client.keyspace.ScanPage;
import io.dkv.client.txn.LogicalValue;
import io.dkv.client.txn.Transaction;
import io.dkv.format.ReservedKeys;
import io.dkv.format.ValueKind;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Script bodies in the store, so that any compute node runs a script another loaded (SCRIPT LOAD on one, EVALSHA on
 * another): each at the named key {@code \x00dkv\x00script:<sha1>} ({@link ReservedKeys#namedKey}), which scans,
 * FLUSHALL and users' commands never touch. EVAL and SCRIPT LOAD keep a body there; SCRIPT FLUSH removes them all.
 * How many there are is kept beside them ({@code \x00dkv\x00scripts-counted}, 8 bytes), changed in the transaction
 * that keeps or removes a body, for INFO's number_of_cached_scripts without a scan.
 */
final class ScriptStore
{
    private static final String PREFIX = "script:";
    private static final byte[] KEY_PREFIX = ReservedKeys.namedKey(PREFIX);
    /** A record of the store's, never expiring. */
    static final long WORD = ValueKind.word(ValueKind.SEGMENT, KvClient.NO_EXPIRY);
    private static final int FLUSH_STEP = 1024;
    private static final byte[] COUNT_KEY = ReservedKeys.namedKey("scripts-counted");

    private final KvClient client;

    ScriptStore(final KvClient client)
    {
        this.client = client;
    }

    /** @return the named key of the script of this sha1 (40 hex digits, lower case). */
    static byte[] key(final String sha)
    {
        return ReservedKeys.namedKey(PREFIX + sha);
    }

    /** @return the body of the script, read in the transaction, or null when the store has none. */
    static byte[] read(final Transaction tx, final String sha)
    {
        final LogicalValue body = tx.read(key(sha));
        return body == null ? null : body.value();
    }

    /** Keep the body in the transaction's writes, unless the store has it already. */
    static void keep(final Transaction tx, final String sha, final byte[] body)
    {
        if (tx.read(key(sha)) == null)
        {
            tx.write(key(sha), body, WORD);
            count(tx, 1);
        }
    }

    /**
     * EVAL's keep: as {@link #keep}, but a new body is left out while a memory node holding its key or the count has
     * no room for writes other than deletes, as redis runs EVAL at its memory limit: the script runs from the body
     * the request carries, and other compute nodes answer its EVALSHA NOSCRIPT until it is kept.
     */
    void keepUnlessFull(final Transaction tx, final String sha, final byte[] body)
    {
        if (tx.read(key(sha)) == null && client.fullCopy(key(sha)) == 0 && client.fullCopy(COUNT_KEY) == 0)
        {
            tx.write(key(sha), body, WORD);
            count(tx, 1);
        }
    }

    /** Add {@code delta} to the bodies counted, never below none (bodies kept before the count was). */
    private static void count(final Transaction tx, final long delta)
    {
        final long kept = Math.max(0, kept(tx) + delta);
        tx.write(COUNT_KEY, ByteBuffer.allocate(Long.BYTES).putLong(kept).array(), WORD);
    }

    private static long kept(final Transaction tx)
    {
        final LogicalValue count = tx.read(COUNT_KEY);
        return count == null || count.value().length != Long.BYTES ? 0 : ByteBuffer.wrap(count.value()).getLong();
    }

    /** @return how many script bodies the store keeps, as of one instant. */
    long count()
    {
        return client.transact(ScriptStore::kept);
    }

    /** SCRIPT LOAD: keep the body, in a transaction of its own. */
    void load(final String sha, final byte[] body)
    {
        client.transact(tx ->
        {
            keep(tx, sha, body);
            return null;
        });
    }

    /** @return for each sha, whether the store has its script, as of one instant. */
    boolean[] exists(final List<String> shas)
    {
        return client.transact(tx ->
        {
            final boolean[] found = new boolean[shas.size()];
            for (int i = 0; i < found.length; i++)
            {
                final String sha = shas.get(i);
                found[i] = sha.length() == 40 && read(tx, sha.toLowerCase()) != null;
            }
            return found;
        });
    }

    /**
     * SCRIPT FLUSH: remove every script body, found by a scan of every memory node's index. A script loaded while it
     * runs may stay, as a key written during FLUSHALL may.
     */
    void flush()
    {
        long cursor = ScanCursor.START;
        do
        {
            final ScanPage page = client.scanAll(cursor, FLUSH_STEP);
            final List<byte[]> scripts = new ArrayList<>();
            for (final byte[] key : page.keys())
            {
                if (key.length > KEY_PREFIX.length &&
                    Arrays.equals(key, 0, KEY_PREFIX.length, KEY_PREFIX, 0, KEY_PREFIX.length))
                {
                    scripts.add(key);
                }
            }
            if (!scripts.isEmpty())
            {
                client.transact(tx ->
                {
                    int removed = 0;
                    for (final byte[] script : scripts)
                    {
                        // one a concurrent flush removed is not counted twice
                        if (tx.read(script) != null)
                        {
                            tx.remove(script);
                            removed++;
                        }
                    }
                    if (removed > 0)
                    {
                        count(tx, -removed);
                    }
                    return null;
                });
            }
            cursor = page.cursor();
        }
        while (cursor != ScanCursor.START);
    }

    /** @return the sha1 of a body, as redis names scripts: 40 lower-case hex digits. */
    static String sha(final byte[] body)
    {
        return RedisApi.sha1hex(body);
    }

    static String text(final byte[] bytes)
    {
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }
}
