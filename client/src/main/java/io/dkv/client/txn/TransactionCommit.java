package io.dkv.client.txn;

import io.dkv.client.KvClient;
import io.dkv.client.KvErrors;
import io.dkv.client.KvException;
import io.dkv.client.Versioned;
import io.dkv.client.WrongKindException;
import io.dkv.format.IntentLayout;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.ReservedKeys;
import io.dkv.format.ValueKind;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * A transaction's commit (client/README.md, "Transactions", rules 2.1 to 2.5): the primary's intent, the
 * secondaries' intents, the reads checked again, the decision at the primary, and the intents resolved. A
 * transaction that writes nothing checks its reads again; one that writes one key and reads no other is that key's
 * single-key write.
 */
final class TransactionCommit
{
    private final TxnServices services;
    private final KvClient client;
    private final CommitKeys keys;
    private final IntentResolver resolver;
    /** The client's own threads: what follows a completion and may wait on a request runs there. */
    private final Executor executor;
    private final List<TxnEntry> writes = new ArrayList<>();
    private final List<TxnEntry> readsOnly = new ArrayList<>();
    /** Whether the committing thread may wait for completions: false on the client's own threads. */
    private final boolean mayWait;

    TransactionCommit(final TxnServices services, final Collection<TxnEntry> entries, final boolean mayWait)
    {
        this.services = services;
        this.mayWait = mayWait;
        this.client = services.client();
        this.keys = services.keys();
        this.resolver = services.resolver();
        this.executor = services.executor();
        for (final TxnEntry entry : entries)
        {
            // a key only peeked at is not checked: its header is (Transaction.peek)
            if (entry.written || entry.read)
            {
                (entry.written ? writes : readsOnly).add(entry);
            }
        }
    }

    void run()
    {
        if (!deletesOnly())
        {
            runWrites();
            return;
        }
        // a transaction of deletes frees memory: on a full node its intents may take the reserve kept for deletes
        final boolean was = keys.freeing(true);
        try
        {
            runWrites();
        }
        finally
        {
            keys.freeing(was);
        }
    }

    /** @return true when the transaction writes keys and each write deletes its key or frees ({@code freeing}). */
    private boolean deletesOnly()
    {
        for (final TxnEntry entry : writes)
        {
            if (entry.newValue != null && !entry.freeing)
            {
                return false;
            }
        }
        return !writes.isEmpty();
    }

    private void runWrites()
    {
        if (writes.isEmpty())
        {
            if (!validate())
            {
                throw conflict("a key it read changed before it ended");
            }
            return;
        }
        if (writes.size() == 1 && readsOnly.isEmpty())
        {
            writeOne(writes.getFirst());
            return;
        }
        commitIntents();
    }

    /**
     * As {@link #run}, carried by completions where the transaction writes one key and reads no other (the key's
     * asynchronous single-key write), writes none (its reads checked again by asynchronous reads), or, where a
     * poster of the caller's posts it and the version each written key's intent replaces is known, commits in
     * parallel ({@link ParallelCommit#runAsync}) or by the protocol ({@link CarriedCommit}); else run on
     * {@code executor}, whole: a commit carried from there would post its abort back to the client's threads, which
     * readers waiting on its intents may all hold.
     *
     * @param poster the thread calling, where requests are posted from: one of the caller's that may wait a moment on
     *               the client (a write may first take a heap chunk, an RPC), never one that delivers the client's
     *               completions; null where the caller gave none (the call is then on one of the client's threads).
     */
    CompletableFuture<Void> runAsync(final Executor poster)
    {
        if (writes.isEmpty())
        {
            final List<CompletableFuture<Boolean>> checks = new ArrayList<>();
            for (final TxnEntry entry : readsOnly)
            {
                // a version read again with any intent resolved names the same write only if none came between
                checks.add(client.getVersionedAsync(entry.key).thenApply(now -> sameVersion(entry.version, now)));
            }
            return CompletableFuture.allOf(checks.toArray(new CompletableFuture[0])).thenApply(ignored ->
            {
                if (checks.stream().anyMatch(check -> !check.join()))
                {
                    throw conflict("a key it read changed before it ended");
                }
                return null;
            });
        }
        if (writes.size() == 1 && readsOnly.isEmpty() &&
            ValueKind.kindOf(writes.getFirst().newExpireAt) == ValueKind.STRING &&
            !ReservedKeys.isReserved(writes.getFirst().key))
        {
            // (a collection's block is written by the synchronous path, from the version there)
            final TxnEntry entry = writes.getFirst();
            final CompletableFuture<Boolean> written;
            if (!entry.read)
            {
                // a put or delete over a collection is refused: the synchronous path replaces it by its version
                written = (entry.newValue == null ? client.deleteAsync(entry.key).thenApply(had -> true) :
                    client.putAsync(entry.key, entry.newValue, entry.newExpireAt).thenApply(ignored -> true))
                    .exceptionallyCompose(failure -> WrongKindException.in(failure) ?
                        CompletableFuture.runAsync(this::run, executor).thenApply(ignored -> true) :
                        CompletableFuture.failedFuture(failure));
            }
            else if (entry.version == null && entry.newValue != null)
            {
                written = client.compareAndSetAsync(entry.key, null, entry.newValue, entry.newExpireAt);
            }
            else if (entry.version != null && entry.newValue != null)
            {
                written = client.compareAndSetVersionAsync(entry.key, entry.version, entry.newValue,
                    entry.newExpireAt);
            }
            else
            {
                return CompletableFuture.runAsync(this::run, executor);
            }
            return written.thenApply(done ->
            {
                if (!done)
                {
                    throw conflict("key " + KvErrors.describe(entry.key) + " changed since it was read");
                }
                return null;
            });
        }
        // a transaction of deletes is committed whole on one thread, which may take a full node's reserve for its
        // intents; a carried commit's later stages run on threads that cannot say so
        if (poster != null && versionsKnown() && !deletesOnly())
        {
            takePeekedVersions();
            // (no thread waits for the swaps, so they go all at once whatever dkv.client.txn.stage.in.flight says)
            return ParallelCommit.applies(writes, readsOnly) ?
                new ParallelCommit(keys, resolver, writes, true, services.resolutions()).runAsync(poster, executor) :
                new CarriedCommit(this, services, writes, readsOnly, poster, executor).run();
        }
        return CompletableFuture.runAsync(this::run, executor);
    }

    /** @return true when the version each written key's intent replaces is known without a request. */
    private boolean versionsKnown()
    {
        for (final TxnEntry entry : writes)
        {
            if (!entry.read && !entry.peekedKnown)
            {
                return false;
            }
        }
        return true;
    }

    /** A key written blind and peeked at is swapped from what the peek read: it must not have changed since. */
    private void takePeekedVersions()
    {
        for (final TxnEntry entry : writes)
        {
            if (!entry.read && entry.peekedKnown)
            {
                entry.version = entry.peeked;
            }
        }
    }

    private static boolean sameVersion(final Versioned read, final Versioned now)
    {
        return read == null ? now == null : now != null && now.writeId == read.writeId;
    }

    /** One key written, no other read: the store's single-key write is the transaction. */
    private void writeOne(final TxnEntry entry)
    {
        final byte[] key = entry.key;
        // (a removal's word is a string's: a reserved key's removal is a segment's or a piece's all the same)
        final boolean string = ValueKind.kindOf(entry.newExpireAt) == ValueKind.STRING &&
            !ReservedKeys.isReserved(key);
        if (!entry.read)
        {
            if (string && blindWrite(entry))
            {
                return;
            }
            // a collection's header or segment, or a string over a collection: written from the version there
            entry.version = entry.peekedKnown ? entry.peeked :
                Transaction.readResolved(keys, resolver, key, Integer.MAX_VALUE);
        }
        final boolean written;
        if (entry.version == null)
        {
            written = entry.newValue == null ? keys.read(key) == null : string ?
                client.compareAndSet(key, null, entry.newValue, entry.newExpireAt) :
                keys.insert(key, entry.newValue, entry.newExpireAt);
        }
        else
        {
            written = resolver.writeValue(key, entry.version, entry.newValue, entry.newExpireAt);
        }
        if (!written)
        {
            throw conflict("key " + KvErrors.describe(key) + " changed since it was read");
        }
    }

    /** @return false when the key holds a collection, which a put or delete does not replace: nothing written. */
    private boolean blindWrite(final TxnEntry entry)
    {
        try
        {
            if (entry.newValue == null)
            {
                client.delete(entry.key);
            }
            else
            {
                client.put(entry.key, entry.newValue, entry.newExpireAt);
            }
            return true;
        }
        catch (final WrongKindException ex)
        {
            return false;
        }
    }

    private void commitIntents()
    {
        readBlindWrites();
        if (ParallelCommit.applies(writes, readsOnly))
        {
            final boolean inFlight = services.stageInFlight() && mayWait;
            new ParallelCommit(keys, resolver, writes, inFlight, services.resolutions()).run();
            return;
        }
        final long txnId = KvBlockLayout.drawWriteId();
        final TxnEntry primary = writes.getFirst();
        // 1: the primary's intent, pending; from here on it holds the transaction's outcome
        if (!place(primary, pendingRecord(txnId), false))
        {
            throw conflict("key " + KvErrors.describe(primary.key) + " changed since it was read");
        }
        fromSecondaries(txnId);
    }

    /** Steps 2 to 5, the primary's intent in place. */
    void fromSecondaries(final long txnId)
    {
        // 2: the secondaries' intents
        placeSecondaries(txnId);
        // 3: what it read and does not write is as it was (the serialization point came before)
        if (!validate())
        {
            abort(writes.getFirst(), true);
            throw conflict("a key it read changed before it committed");
        }
        decide(txnId);
    }

    /** Steps 4 and 5, every intent in place and the reads checked again. */
    void decide(final long txnId)
    {
        // 4: the decision, at the primary
        final TxnEntry primary = writes.getFirst();
        final boolean committed;
        try
        {
            committed = writes.size() == 1 ?
                resolver.writeValue(primary.key, primary.placed, primary.newValue, primary.newExpireAt) :
                keys.swap(primary.key, primary.placed, committedRecord(txnId), KvBlockLayout.INTENT);
        }
        catch (final KvException ex)
        {
            throw undecided(ex);
        }
        if (!committed)
        {
            // a waiter aborted it at its primary: its secondaries go back
            abort(primary, false);
            throw conflict("another client aborted it while it stood pending");
        }
        if (writes.size() == 1)
        {
            return;
        }
        // 5: each secondary then the primary swapped for its value, after the answer on the resolution agent
        final Versioned committedPrimary = keys.lastWritten();
        if (!services.resolutions().offer(() -> resolver.resolveCommitted(writes, committedPrimary, txnId)))
        {
            resolver.resolveCommitted(writes, committedPrimary, txnId);
        }
    }

    /** @return the primary's intent while the transaction stands pending. */
    byte[] pendingRecord(final long txnId)
    {
        final TxnEntry primary = writes.getFirst();
        return IntentLayout.encode(IntentLayout.PRIMARY_PENDING, txnId, null, primary.newValue, primary.newExpireAt,
            primary.prior(), primary.priorExpireAt(), null);
    }

    /** @return the intent of the secondary {@code writes[index]}. */
    byte[] secondaryRecord(final long txnId, final int index)
    {
        final TxnEntry secondary = writes.get(index);
        return IntentLayout.encode(IntentLayout.SECONDARY, txnId, writes.getFirst().key, secondary.newValue,
            secondary.newExpireAt, secondary.prior(), secondary.priorExpireAt(), null);
    }

    /** @return the primary's decision where it has secondaries: COMMITTED, naming each. */
    byte[] committedRecord(final long txnId)
    {
        final TxnEntry primary = writes.getFirst();
        final byte[][] secondaryKeys = new byte[writes.size() - 1][];
        for (int i = 1; i < writes.size(); i++)
        {
            secondaryKeys[i - 1] = writes.get(i).key;
        }
        return IntentLayout.encode(IntentLayout.PRIMARY_COMMITTED, txnId, null, primary.newValue,
            primary.newExpireAt, primary.prior(), primary.priorExpireAt(), secondaryKeys);
    }

    /** @return the answer where the decision's swap went unanswered. */
    KvException undecided(final Exception cause)
    {
        return new KvException("a transaction over " + writes.size() + " keys may or may not have committed: " +
            "its commit at key " + KvErrors.describe(writes.getFirst().key) + " failed: " + cause.getMessage(), cause);
    }

    /** @return the answer where an intent's swap went unanswered and the primary was then aborted (or abandoned). */
    KvException notPlaced(final TxnEntry entry, final Exception cause)
    {
        return new KvException("a transaction over " + writes.size() + " keys did not commit: its intent on key " +
            KvErrors.describe(entry.key) + " failed: " + cause.getMessage(), cause);
    }

    /**
     * A blind write still replaces a version: the one its intent is swapped in from (what a peek read, where one did:
     * the key must not have changed since). Where requests wait on a wire or a NIC and the thread may wait, the
     * versions of two or more such keys are read all in flight at once (an MSET's keys: one round where one by one
     * takes one each); a read that fails so is made again alone. On shm, where a request is the posting thread's own
     * copy, and on the client's own threads, one after the other.
     */
    private void readBlindWrites()
    {
        takePeekedVersions();
        List<CompletableFuture<Versioned>> reads = null;
        if (mayWait && client.requestsWaitOnWire())
        {
            int blind = 0;
            for (final TxnEntry entry : writes)
            {
                blind += !entry.read && !entry.peekedKnown ? 1 : 0;
            }
            if (blind > 1)
            {
                reads = new ArrayList<>(writes.size());
                for (final TxnEntry entry : writes)
                {
                    reads.add(!entry.read && !entry.peekedKnown ? keys.readAsync(entry.key) : null);
                }
            }
        }
        for (int i = 0; i < writes.size(); i++)
        {
            final TxnEntry entry = writes.get(i);
            if (entry.read)
            {
                continue;
            }
            if (entry.peekedKnown)
            {
                continue;
            }
            if (reads != null)
            {
                try
                {
                    final Versioned version = keys.await(reads.get(i));
                    if (version == null || !KvBlockLayout.isIntent(version.expireAtMillis()))
                    {
                        entry.version = version;
                        continue;
                    }
                }
                catch (final RuntimeException ex)
                {
                    // read alone below, which answers the failure if it persists
                }
            }
            entry.version = Transaction.readResolved(keys, resolver, entry.key, Integer.MAX_VALUE);
        }
    }

    /**
     * Step 2: every secondary's intent swapped in from its version, one after the other. Any refused: abort and a
     * conflict; any unanswered: abort (in {@link #place}) and the failure.
     */
    private void placeSecondaries(final long txnId)
    {
        for (int i = 1; i < writes.size(); i++)
        {
            final TxnEntry secondary = writes.get(i);
            if (!place(secondary, secondaryRecord(txnId, i), true))
            {
                abort(writes.getFirst(), true);
                throw conflict("key " + KvErrors.describe(secondary.key) + " changed since it was read");
            }
        }
    }

    /**
     * Swap the entry's intent in from the version it read.
     *
     * @param abortOnDoubt a secondary's doubt (an unanswered swap) aborts the transaction at its primary first.
     * @return false when the key changed since it was read.
     */
    private boolean place(final TxnEntry entry, final byte[] intent, final boolean abortOnDoubt)
    {
        final boolean placed;
        try
        {
            placed = entry.version == null ? keys.insert(entry.key, intent, KvBlockLayout.INTENT) :
                keys.swap(entry.key, entry.version, intent, KvBlockLayout.INTENT);
        }
        catch (final KvException ex)
        {
            if (abortOnDoubt)
            {
                abort(writes.getFirst(), true);
            }
            else
            {
                abandonPrimary(entry);
            }
            throw notPlaced(entry, ex);
        }
        if (placed)
        {
            entry.placed = keys.lastWritten();
        }
        return placed;
    }

    /**
     * The primary's swap got no answer: it may hold the pending intent. A waiter would abort it after the push time;
     * the coordinator does now if it can read it.
     */
    void abandonPrimary(final TxnEntry primary)
    {
        try
        {
            final Versioned read = keys.read(primary.key);
            final Intent intent = Intent.of(primary.key, read);
            if (intent != null && intent.isPending() && read.writeId != KvBlockLayout.NO_WRITE)
            {
                resolver.writeValue(primary.key, read, intent.prior, intent.priorExpireAt);
            }
        }
        catch (final KvException ex)
        {
            // a waiter aborts it past the push time
        }
    }

    /**
     * Abort: the primary from its pending intent to its prior value (unless a waiter did it already), then each
     * secondary placed back to its prior value. Best effort: whatever is left is aborted by the rules.
     */
    void abort(final TxnEntry primary, final boolean atPrimary)
    {
        try
        {
            if (atPrimary)
            {
                resolver.writeValue(primary.key, primary.placed, primary.prior(), primary.priorExpireAt());
            }
            for (int i = 1; i < writes.size(); i++)
            {
                final TxnEntry secondary = writes.get(i);
                if (secondary.placed != null)
                {
                    resolver.writeValue(secondary.key, secondary.placed, secondary.prior(), secondary.priorExpireAt());
                }
            }
        }
        catch (final KvException ex)
        {
            // the primary no longer names the transaction, or will once a waiter aborts it: readers take it aborted
        }
    }

    /** @return true when every key read and not written still holds the version read, and no intent. */
    private boolean validate()
    {
        for (final TxnEntry entry : readsOnly)
        {
            final Versioned now = keys.read(entry.key);
            if (entry.version == null ? now != null :
                now == null || KvBlockLayout.isIntent(now.expireAtMillis()) || now.writeId != entry.version.writeId)
            {
                return false;
            }
        }
        return true;
    }

    TransactionConflictException conflict(final String why)
    {
        return new TransactionConflictException("the transaction over " + (writes.size() + readsOnly.size()) +
            " keys did not commit, and took no effect: " + why);
    }
}
