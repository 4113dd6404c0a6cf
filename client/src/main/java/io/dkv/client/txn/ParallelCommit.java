package io.dkv.client.txn;

import io.dkv.client.KvErrors;
import io.dkv.client.KvException;
import io.dkv.client.Versioned;
import io.dkv.format.IntentLayout;
import io.dkv.format.KvBlockLayout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * The parallel commit (client/README.md, "Parallel commit"), for a transaction over several keys that read a value
 * with no expiry at every key it writes and read no other: every intent swapped in, each from the write id read, the
 * primary's a STAGING record listing each secondary with the write id its swap expects. The transaction is committed
 * exactly when all of them stand, and is answered then; the decision (STAGING to COMMITTED) and the resolutions
 * follow on one of the client's threads ({@link Resolutions}). Run by a committing thread ({@link #run}) or carried by
 * completions ({@link #runAsync}); the two share the stage's outcomes and what follows them, hence one class.
 */
final class ParallelCommit
{
    /** Swaps of unknown outcome tried again from the same version before the answer is "unknown". */
    private static final int UNKNOWN_RETRIES = 3;
    private static final int STANDS = 1;
    private static final int FAILED = 2;
    private static final int DOUBT = 3;
    /** Read back as COMMITTED: another found every intent standing and decided it, and resolves it. */
    private static final int DECIDED = 4;

    private final CommitKeys keys;
    private final IntentResolver resolver;
    private final List<TxnEntry> writes;
    /** Whether the intents are swapped in all at once: asked for, and the committing thread may wait for them. */
    private final boolean stageInFlight;
    private final Resolutions resolutions;
    private final int[] outcomes;
    private final long txnId = KvBlockLayout.drawWriteId();

    /**
     * @param stageInFlight the intents all at once, carried by completions (the client's setting, where the
     *                      committing thread may wait for them: not one of the client's own threads).
     * @param resolutions   where the decision and the resolutions run after the answer.
     */
    ParallelCommit(final CommitKeys keys, final IntentResolver resolver, final List<TxnEntry> writes,
        final boolean stageInFlight, final Resolutions resolutions)
    {
        this.keys = keys;
        this.resolver = resolver;
        this.writes = writes;
        this.stageInFlight = stageInFlight;
        this.resolutions = resolutions;
        this.outcomes = new int[writes.size()];
    }

    /**
     * @return whether these writes commit in parallel: several keys, each read holding a value with no expiry (a key
     * with no value has no write id a fence could retire; an expiring one could read as empty while its write id
     * stands), and no key read that is not written.
     */
    static boolean applies(final List<TxnEntry> writes, final List<TxnEntry> readsOnly)
    {
        if (writes.size() < 2 || !readsOnly.isEmpty())
        {
            return false;
        }
        for (final TxnEntry entry : writes)
        {
            if (entry.version == null || entry.version.expiryWord() != KvBlockLayout.NEVER)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Commit: returns once committed (the decision and resolutions started, not awaited).
     *
     * @throws TransactionConflictException when it did not commit, and took no effect.
     * @throws KvException                  when it may or may not have committed.
     */
    void run()
    {
        final byte[][] records = records();
        stage(records);
        conclude(records);
    }

    /**
     * As {@link #run}, without a thread waiting: every intent swapped in at once, carried by completions (there is no
     * committing thread to swap them one after the other), and the answer given by the completion of the last swap
     * where every one stood, the decision and resolutions offered to the resolution agent. Where a swap was refused
     * and none went unanswered, the transaction is aborted and rolled back the same way ({@link #abortAsync}). What
     * completions cannot carry (a swap they cannot start, one unanswered, a full resolution queue) goes on on
     * {@code executor}, as {@link #run} would from there.
     *
     * @param poster   where requests are posted from: a thread that may wait a moment on the client (a swap may need
     *                 a heap chunk first, an RPC), never one that delivers its completions, nor one of the client's
     *                 (readers that meet an intent of this transaction may hold them all, waiting for its abort).
     * @param executor the client's threads, for what waits on requests.
     * @return completes once committed; exceptionally as {@link #run} throws.
     */
    CompletableFuture<Void> runAsync(final Executor poster, final Executor executor)
    {
        final byte[][] records = records();
        final PreparedSwap[] swaps = prepareAll(records);
        if (swaps == null)
        {
            return CompletableFuture.runAsync(() ->
            {
                stageOneByOne(records);
                conclude(records);
            }, executor);
        }
        final CompletableFuture<?>[] placed = start(swaps);
        return CompletableFuture.allOf(placed).handle((ignored, failure) -> null).thenCompose(ignored ->
        {
            if (placedAll(placed))
            {
                final byte[] decided = Intent.decided(writes.getFirst().placed.value());
                return resolutions.offer(() -> finish(decided)) ? CompletableFuture.<Void>completedFuture(null) :
                    CompletableFuture.runAsync(() -> finish(decided), executor);
            }
            return refusedOnly() ? abortAsync(poster) : CompletableFuture.runAsync(() -> conclude(records), executor);
        });
    }

    /** @return true when a swap was refused and every other one answered: no outcome is in doubt. */
    private boolean refusedOnly()
    {
        boolean refused = false;
        for (final int outcome : outcomes)
        {
            if (outcome == DOUBT)
            {
                return false;
            }
            refused |= outcome == FAILED;
        }
        return refused;
    }

    /**
     * A stage in which a swap was refused: the transaction can never stand whole. As {@link #conclude} does it, its
     * STAGING record is aborted first (swapped back to the primary's prior value, where it stood), then each
     * secondary that stands rolled back, all at once; each swap posted by {@code poster} and carried by completions.
     * The answer is the conflict once they answered, whatever they came to: a recoverer aborts such a record too, and
     * whoever meets a secondary left rolls it back.
     */
    private CompletableFuture<Void> abortAsync(final Executor poster)
    {
        final CompletableFuture<Void> aborted = outcomes[0] == STANDS ?
            CompletableFuture.supplyAsync(() -> CarriedSwaps.rollBack(keys, resolver, List.of(writes.getFirst())),
                poster).thenCompose(done -> done) :
            CompletableFuture.completedFuture(null);
        return aborted.thenComposeAsync(ignored -> CarriedSwaps.rollBack(keys, resolver, standingSecondaries()),
            poster).thenApply(ignored ->
        {
            throw new TransactionConflictException("the transaction over " + writes.size() + " keys did not " +
                "commit, and took no effect: a key it writes changed since it was read");
        });
    }

    /** @return the secondaries whose intents stand. */
    private List<TxnEntry> standingSecondaries()
    {
        final List<TxnEntry> standing = new ArrayList<>(writes.size());
        for (int i = 1; i < writes.size(); i++)
        {
            if (outcomes[i] == STANDS)
            {
                standing.add(writes.get(i));
            }
        }
        return standing;
    }

    /**
     * What the swaps came to, each intent's outcome noted as {@link #stage} notes it.
     *
     * @return true when every intent stands.
     */
    private boolean placedAll(final CompletableFuture<?>[] placed)
    {
        boolean all = true;
        for (int i = 0; i < placed.length; i++)
        {
            final Versioned version = placed[i].isCompletedExceptionally() ? null : (Versioned)placed[i].join();
            writes.get(i).placed = version;
            outcomes[i] = placed[i].isCompletedExceptionally() ? DOUBT : version != null ? STANDS : FAILED;
            all &= outcomes[i] == STANDS;
        }
        return all;
    }

    /** The outcomes of the stage made known, then the answer: committed, a conflict, or unknown. */
    private void conclude(final byte[][] records)
    {
        settleUnknowns(records);
        boolean failed = false;
        boolean doubt = false;
        for (final int outcome : outcomes)
        {
            if (outcome == DECIDED)
            {
                return;
            }
            failed |= outcome == FAILED;
            doubt |= outcome == DOUBT;
        }
        if (!failed && !doubt)
        {
            final byte[] decided = Intent.decided(writes.getFirst().placed.value());
            if (!resolutions.offer(() -> finish(decided)))
            {
                finish(decided);
            }
            return;
        }
        final TxnEntry primary = writes.getFirst();
        boolean aborted = false;
        if (outcomes[0] == STANDS)
        {
            try
            {
                aborted = resolver.writeValue(primary.key, primary.placed, primary.prior(), primary.priorExpireAt());
            }
            catch (final KvException ex)
            {
                // a swap that failed means it can never stand whole: answered failed all the same
            }
        }
        if (!failed && !aborted)
        {
            // an intent in doubt may have stood and been resolved by whoever recovered the transaction
            throw new KvException("a transaction over " + writes.size() + " keys may or may not have committed: " +
                "an intent's swap went unanswered, and its STAGING record could not be aborted");
        }
        rollBack();
        throw new TransactionConflictException("the transaction over " + writes.size() + " keys did not commit, and " +
            "took no effect: a key it writes changed since it was read");
    }

    /** @return each key's intent: the primary's STAGING record, then each secondary's. */
    private byte[][] records()
    {
        final TxnEntry primary = writes.getFirst();
        final int secondaries = writes.size() - 1;
        final byte[][] secondaryKeys = new byte[secondaries][];
        final long[] expected = new long[secondaries];
        for (int i = 0; i < secondaries; i++)
        {
            secondaryKeys[i] = writes.get(i + 1).key;
            expected[i] = writes.get(i + 1).version.writeId;
        }
        final byte[][] records = new byte[writes.size()][];
        records[0] = IntentLayout.encode(IntentLayout.PRIMARY_STAGING, txnId, null, primary.newValue,
            primary.newExpireAt, primary.prior(), primary.priorExpireAt(), secondaryKeys, expected);
        final long[] primaryExpected = {primary.version.writeId};
        for (int i = 1; i < records.length; i++)
        {
            final TxnEntry secondary = writes.get(i);
            records[i] = IntentLayout.encode(IntentLayout.SECONDARY, txnId, primary.key, secondary.newValue,
                secondary.newExpireAt, secondary.prior(), secondary.priorExpireAt(), null, primaryExpected);
        }
        return records;
    }

    /**
     * Every intent swapped in: all in flight at once, carried by completions, where the client asks it, else one
     * after the other (a failed one stops the rest: the transaction cannot stand whole). On {@code shm} one after the
     * other measured faster: a request there costs the CPU that carries it, and a swap carried by completions reads
     * the key's buckets and block where the synchronous one swaps from the word it read.
     */
    private void stage(final byte[][] records)
    {
        final PreparedSwap[] swaps = stageInFlight ? prepareAll(records) : null;
        if (swaps == null)
        {
            stageOneByOne(records);
            return;
        }
        final CompletableFuture<?>[] placed = start(swaps);
        for (int i = 0; i < records.length; i++)
        {
            try
            {
                final Versioned version = (Versioned)keys.await(placed[i]);
                writes.get(i).placed = version;
                outcomes[i] = version != null ? STANDS : FAILED;
            }
            catch (final CompletionException ex)
            {
                outcomes[i] = DOUBT;
            }
        }
    }

    /** Each intent swapped in on this thread, one after the other; a failed one stops the rest. */
    private void stageOneByOne(final byte[][] records)
    {
        for (int i = 0; i < records.length; i++)
        {
            outcomes[i] = swapOnce(i, records[i]);
            if (outcomes[i] == FAILED)
            {
                break;
            }
        }
    }

    /** @return each swap started, from the version its key was read at: completes with what it placed, or null. */
    private CompletableFuture<?>[] start(final PreparedSwap[] swaps)
    {
        final CompletableFuture<?>[] placed = new CompletableFuture<?>[swaps.length];
        for (int i = 0; i < swaps.length; i++)
        {
            placed[i] = swaps[i].start(writes.get(i).version);
        }
        return placed;
    }

    /** @return a swap ready for each record, or null (none held) where completions cannot carry every one. */
    private PreparedSwap[] prepareAll(final byte[][] records)
    {
        final PreparedSwap[] swaps = new PreparedSwap[records.length];
        for (int i = 0; i < records.length; i++)
        {
            swaps[i] = keys.prepareSwap(writes.get(i).key, records[i], KvBlockLayout.INTENT);
            if (swaps[i] == null)
            {
                cancel(swaps);
                return null;
            }
        }
        return swaps;
    }

    private static void cancel(final PreparedSwap... swaps)
    {
        for (final PreparedSwap swap : swaps)
        {
            if (swap != null)
            {
                swap.cancel();
            }
        }
    }

    /** @return STANDS, FAILED, or DOUBT where its outcome is unknown (settled by {@link #settleUnknowns}). */
    private int swapOnce(final int index, final byte[] record)
    {
        final TxnEntry entry = writes.get(index);
        try
        {
            if (keys.swapExact(entry.key, entry.version, record, KvBlockLayout.INTENT))
            {
                entry.placed = keys.lastWritten();
                return STANDS;
            }
            return FAILED;
        }
        catch (final KvException ex)
        {
            return DOUBT;
        }
    }

    /**
     * A swap of unknown outcome is tried again from the same version until known: landing, it stands; refused, the
     * key is read: T's intent there stands (a primary found COMMITTED was recovered and decided by another, which
     * resolves it: committed); anything else leaves a doubt. One still unanswered after the retries: "unknown".
     */
    private void settleUnknowns(final byte[][] records)
    {
        for (int i = 0; i < records.length; i++)
        {
            if (outcomes[i] != DOUBT)
            {
                continue;
            }
            final TxnEntry entry = writes.get(i);
            int outcome = DOUBT;
            KvException last = null;
            for (int attempt = 0; attempt < UNKNOWN_RETRIES && outcome == DOUBT && last == null; attempt++)
            {
                try
                {
                    outcome = keys.swapExact(entry.key, entry.version, records[i], KvBlockLayout.INTENT) ?
                        STANDS : FAILED;
                    entry.placed = outcome == STANDS ? keys.lastWritten() : null;
                }
                catch (final KvException ex)
                {
                    if (attempt == UNKNOWN_RETRIES - 1)
                    {
                        last = ex;
                    }
                }
            }
            if (last != null)
            {
                throw new KvException("a transaction over " + writes.size() + " keys may or may not have committed: " +
                    "its intent at key " + KvErrors.describe(entry.key) + " went unanswered " + UNKNOWN_RETRIES +
                    " times: " + last.getMessage(), last);
            }
            outcomes[i] = outcome == STANDS ? STANDS : readBack(i);
        }
    }

    /** @return STANDS when the key holds T's intent (in its role), DECIDED when COMMITTED, else DOUBT. */
    private int readBack(final int index)
    {
        final TxnEntry entry = writes.get(index);
        final Versioned read = keys.read(entry.key);
        final Intent intent = Intent.of(entry.key, read);
        if (intent == null || intent.txnId != txnId || intent.isPrimary() != (index == 0))
        {
            return DOUBT;
        }
        if (intent.isCommitted())
        {
            return DECIDED;
        }
        entry.placed = read;
        return STANDS;
    }

    /**
     * Committed and answered: the STAGING record decided COMMITTED, then each secondary swapped for its value, then
     * the primary. A decision missed was made by a waiter that found every intent in, which may have gone on with its
     * own key only (a get, or a secondary's resolution): the rest is finished from what the primary holds. The
     * primary goes only once every secondary is known to hold T's intent no more (the model check's rule); a swap
     * unanswered leaves the rest to whoever meets the intents.
     */
    private void finish(final byte[] decided)
    {
        final TxnEntry primary = writes.getFirst();
        try
        {
            if (!keys.swapExact(primary.key, primary.placed, decided, KvBlockLayout.INTENT))
            {
                // a waiter found every intent in and decided it; a reader then goes on with its own key alone
                resolver.finishCommitted(primary.key, txnId);
                return;
            }
        }
        catch (final RuntimeException ex)
        {
            // committed: whoever meets an intent left resolves it
            return;
        }
        resolver.resolveCommitted(writes, keys.lastWritten(), txnId);
    }

    /** Each secondary that stands back to its prior value; best effort, as whoever meets one rolls it back too. */
    private void rollBack()
    {
        for (int i = 1; i < writes.size(); i++)
        {
            final TxnEntry secondary = writes.get(i);
            if (outcomes[i] != STANDS)
            {
                continue;
            }
            try
            {
                resolver.writeValue(secondary.key, secondary.placed, secondary.prior(), secondary.priorExpireAt());
            }
            catch (final KvException ex)
            {
                // its primary holds no record of the transaction: whoever meets it rolls it back
            }
        }
    }
}
