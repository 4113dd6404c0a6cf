package io.dkv.client.txn;

import io.dkv.client.KvErrors;
import io.dkv.client.KvException;
import io.dkv.client.Versioned;
import io.dkv.format.KvBlockLayout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The protocol's commit (client/README.md, "Transactions", rules 2.1 to 2.5) carried by completions, for a commit
 * whose requests a caller's poster posts ({@link TransactionCommit#runAsync}): a round each for the primary's PENDING
 * intent, every secondary's intent at once, every key read only read again at once, and the decision at the primary;
 * the answer then, the resolutions offered to the resolution agent. Each round is posted by the poster once the one
 * before answered, and no thread waits between. An intent refused or a key read changed aborts it, carried the same
 * way: the primary back to its prior value first, then each secondary that stands. What completions cannot carry (a
 * swap they cannot make ready, the primary's or the decision's swap unanswered) goes on from that step on the
 * client's threads, as the synchronous commit ({@link TransactionCommit}) does it.
 */
final class CarriedCommit
{
    private final TransactionCommit commit;
    private final CommitKeys keys;
    private final IntentResolver resolver;
    private final Resolutions resolutions;
    private final List<TxnEntry> writes;
    private final List<TxnEntry> readsOnly;
    private final Executor poster;
    private final Executor executor;
    private final long txnId = KvBlockLayout.drawWriteId();

    /**
     * @param writes    the keys written, the first the primary; each with the version its intent replaces (null: the
     *                  key has no value), known.
     * @param readsOnly the keys read and not written, each with the version read.
     * @param poster    where requests are posted from: never a thread that delivers the client's completions, nor one
     *                  of the client's own (readers that meet this transaction's intents may hold them all).
     * @param executor  the client's threads, for what waits on requests.
     */
    CarriedCommit(final TransactionCommit commit, final TxnServices services, final List<TxnEntry> writes,
        final List<TxnEntry> readsOnly, final Executor poster, final Executor executor)
    {
        this.commit = commit;
        this.keys = services.keys();
        this.resolver = services.resolver();
        this.resolutions = services.resolutions();
        this.writes = writes;
        this.readsOnly = readsOnly;
        this.poster = poster;
        this.executor = executor;
    }

    /**
     * Commit, from the poster's thread.
     *
     * @return completes once committed (the resolutions started, not awaited); exceptionally with a
     * {@link TransactionConflictException} where it did not commit and took no effect, a {@link KvException} where
     * an intent or the decision went unanswered, as the synchronous commit throws.
     */
    CompletableFuture<Void> run()
    {
        final TxnEntry primary = writes.getFirst();
        final PreparedSwap swap = keys.prepareSwap(primary.key, commit.pendingRecord(txnId), KvBlockLayout.INTENT);
        if (swap == null)
        {
            return CompletableFuture.runAsync(commit::run, executor);
        }
        return swap.start(primary.version).handle(Swapped::of).thenCompose(swapped ->
        {
            if (swapped.failure != null)
            {
                // it may hold the pending intent: read and aborted if so, which waits on requests
                return CompletableFuture.runAsync(() ->
                {
                    commit.abandonPrimary(primary);
                    throw commit.notPlaced(primary, swapped.failure);
                }, executor);
            }
            if (swapped.placed == null)
            {
                throw commit.conflict("key " + KvErrors.describe(primary.key) + " changed since it was read");
            }
            primary.placed = swapped.placed;
            return CompletableFuture.supplyAsync(this::placeSecondaries, poster).thenCompose(placed -> placed);
        });
    }

    /** Step 2: every secondary's intent at once, each from its version. */
    private CompletableFuture<Void> placeSecondaries()
    {
        final int secondaries = writes.size() - 1;
        final PreparedSwap[] swaps = new PreparedSwap[secondaries];
        for (int i = 0; i < secondaries; i++)
        {
            swaps[i] = keys.prepareSwap(writes.get(i + 1).key, commit.secondaryRecord(txnId, i + 1),
                KvBlockLayout.INTENT);
            if (swaps[i] == null)
            {
                cancel(swaps);
                return CompletableFuture.runAsync(() -> commit.fromSecondaries(txnId), executor);
            }
        }
        final CompletableFuture<?>[] placed = new CompletableFuture<?>[secondaries];
        for (int i = 0; i < secondaries; i++)
        {
            placed[i] = swaps[i].start(writes.get(i + 1).version);
        }
        return CompletableFuture.allOf(placed).handle((ignored, failure) -> null).thenCompose(ignored ->
        {
            RuntimeException refusal = null;
            for (int i = 0; i < secondaries; i++)
            {
                final TxnEntry secondary = writes.get(i + 1);
                if (placed[i].isCompletedExceptionally())
                {
                    refusal = commit.notPlaced(secondary, failureOf(placed[i]));
                }
                else
                {
                    secondary.placed = (Versioned)placed[i].join();
                    if (secondary.placed == null && refusal == null)
                    {
                        refusal = commit.conflict("key " + KvErrors.describe(secondary.key) + " changed since it " +
                            "was read");
                    }
                }
            }
            return refusal != null ? abort(true, refusal) : validate();
        });
    }

    /** Step 3: what it read and does not write read again, all at once: each as it was. */
    private CompletableFuture<Void> validate()
    {
        if (readsOnly.isEmpty())
        {
            return CompletableFuture.supplyAsync(this::decide, poster).thenCompose(decided -> decided);
        }
        final List<CompletableFuture<Versioned>> reads = new ArrayList<>(readsOnly.size());
        return CompletableFuture.supplyAsync(() ->
        {
            for (final TxnEntry entry : readsOnly)
            {
                reads.add(keys.readRawAsync(entry.key));
            }
            return CompletableFuture.allOf(reads.toArray(new CompletableFuture<?>[0]));
        }, poster).thenCompose(all -> all).handle((ignored, failure) -> null).thenCompose(ignored ->
        {
            for (int i = 0; i < readsOnly.size(); i++)
            {
                final TxnEntry entry = readsOnly.get(i);
                if (reads.get(i).isCompletedExceptionally())
                {
                    return abort(true, new KvException("a transaction over " + writes.size() + " keys did not " +
                        "commit: reading key " + KvErrors.describe(entry.key) + " again failed: " +
                        failureOf(reads.get(i)).getMessage(), failureOf(reads.get(i))));
                }
                // an intent there is a change, as the synchronous commit takes it: never waited for (its
                // transaction's readers may be waiting for this one's)
                final Versioned now = reads.get(i).join();
                if (entry.version == null ? now != null :
                    now == null || KvBlockLayout.isIntent(now.expireAtMillis()) || now.writeId != entry.version.writeId)
                {
                    return abort(true, commit.conflict("a key it read changed before it committed"));
                }
            }
            return CompletableFuture.supplyAsync(this::decide, poster).thenCompose(decided -> decided);
        });
    }

    /** Steps 4 and 5: the primary decided, then the answer, the resolutions offered to the resolution agent. */
    private CompletableFuture<Void> decide()
    {
        final TxnEntry primary = writes.getFirst();
        final PreparedSwap swap = writes.size() == 1 ?
            CarriedSwaps.prepareValue(keys, primary.key, primary.newValue, primary.newExpireAt) :
            keys.prepareSwap(primary.key, commit.committedRecord(txnId), KvBlockLayout.INTENT);
        if (swap == null)
        {
            return CompletableFuture.runAsync(() -> commit.decide(txnId), executor);
        }
        return swap.start(primary.placed).handle(Swapped::of).thenCompose(swapped ->
        {
            if (swapped.failure != null)
            {
                throw commit.undecided(swapped.failure);
            }
            if (swapped.placed == null)
            {
                // a waiter aborted it at its primary: its secondaries go back
                return abort(false, commit.conflict("another client aborted it while it stood pending"));
            }
            if (writes.size() == 1)
            {
                return CompletableFuture.completedFuture(null);
            }
            final Versioned committedPrimary = swapped.placed;
            final Runnable resolution = () -> resolver.resolveCommitted(writes, committedPrimary, txnId);
            return resolutions.offer(resolution) ? CompletableFuture.<Void>completedFuture(null) :
                CompletableFuture.runAsync(resolution, executor);
        });
    }

    /**
     * Abort, as the synchronous commit does: the primary from its pending intent to its prior value (unless a waiter
     * did it already), then each secondary that stands back to its prior value, each round posted by the poster.
     *
     * @return completes exceptionally with {@code answer} once the swaps answered, whatever they came to.
     */
    private CompletableFuture<Void> abort(final boolean atPrimary, final RuntimeException answer)
    {
        final CompletableFuture<Void> aborted = atPrimary ?
            CompletableFuture.supplyAsync(() -> CarriedSwaps.rollBack(keys, resolver, List.of(writes.getFirst())),
                poster).thenCompose(done -> done) :
            CompletableFuture.completedFuture(null);
        return aborted.thenComposeAsync(ignored -> CarriedSwaps.rollBack(keys, resolver, standingSecondaries()),
            poster).thenApply(ignored ->
        {
            throw answer;
        });
    }

    private List<TxnEntry> standingSecondaries()
    {
        final List<TxnEntry> standing = new ArrayList<>(writes.size());
        for (int i = 1; i < writes.size(); i++)
        {
            if (writes.get(i).placed != null)
            {
                standing.add(writes.get(i));
            }
        }
        return standing;
    }

    private static Exception failureOf(final CompletableFuture<?> failed)
    {
        try
        {
            failed.join();
            throw new IllegalStateException("not failed");
        }
        catch (final java.util.concurrent.CompletionException ex)
        {
            return ex.getCause() instanceof Exception cause ? cause : ex;
        }
        catch (final java.util.concurrent.CancellationException ex)
        {
            return ex;
        }
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

    /** What a swap came to: the version it put in place (null: refused), or the failure that left it unknown. */
    private record Swapped(Versioned placed, Exception failure)
    {
        static Swapped of(final Versioned placed, final Throwable thrown)
        {
            return new Swapped(placed, thrown == null ? null : failureOf(CompletableFuture.failedFuture(thrown)));
        }
    }
}
