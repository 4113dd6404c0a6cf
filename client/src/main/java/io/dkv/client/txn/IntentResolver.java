package io.dkv.client.txn;

import io.dkv.client.KvErrors;
import io.dkv.client.Versioned;
import io.dkv.format.KvBlockLayout;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The rules by which every read and write of a client treats a key holding a transaction's intent (client/README.md,
 * "Transactions"): what the key reads as ({@link #valueOf}: the primary decides), and how a write gets the intent out
 * of its way ({@link #resolve}: a decided transaction's intent swapped for its value, a pending one waited on and,
 * once it has stood for the push time, its transaction aborted at its primary; a parallel commit's STAGING one
 * checked, its intents found all standing or one fenced ("Parallel commit")). One per client, used by every thread
 * through its own session's {@link RawKeys}.
 */
public final class IntentResolver
{
    /** The longest pause between reads of a pending intent: a commit takes a few round trips. */
    private static final long MAX_PAUSE_NANOS = 200_000;
    private static final byte[] NO_VALUE = new byte[0];
    private static final int MAX_SWAPS = 1_000;

    private final RawKeys keys;
    private final long pushNanos;

    /** @param pushNanos how long a pending intent stands unchanged before a waiter aborts its transaction. */
    public IntentResolver(final RawKeys keys, final long pushNanos)
    {
        this.keys = keys;
        this.pushNanos = pushNanos;
    }

    /**
     * What a key that holds an intent reads as. Writes nothing but a STAGING record's decision once every intent it
     * lists is in, and past the push time the abort of a transaction that stands pending (or a parallel commit's
     * fence and abort).
     *
     * @param read the key's block, an intent, as read.
     * @return the key's value and expiry, or null when it has none (or it expired).
     */
    public LogicalValue valueOf(final byte[] key, final Versioned read)
    {
        final Waiting waiting = new Waiting();
        Versioned current = read;
        while (true)
        {
            final Intent intent = Intent.of(key, current);
            if (intent == null)
            {
                return current == null ? null : live(current.value(), current.expiryWord());
            }
            final Versioned primaryRead = intent.isPrimary() ? current : keys.read(intent.primaryKey);
            final Intent primary = ofTransaction(intent.primaryKey, primaryRead, intent.txnId);
            if (primary != null && primary.isCommitted())
            {
                return live(intent.newValue, intent.newExpireAt);
            }
            if (primary != null)
            {
                waiting.onPending(intent.primaryKey, primaryRead, primary);
                current = keys.read(key);
                continue;
            }
            if (stagingMayLand(intent, primaryRead))
            {
                if (waiting.onExpected(intent.primaryKey, primaryRead))
                {
                    // fenced: its transaction can never commit
                    return live(intent.prior, intent.priorExpireAt);
                }
                current = keys.read(key);
                continue;
            }
            // the primary holds something else: this intent's transaction aborted, unless the key moved on since
            final Versioned again = keys.read(key);
            if (sameBlock(again, current))
            {
                return live(intent.prior, intent.priorExpireAt);
            }
            current = again;
        }
    }

    /**
     * Get any intent out of the key's way: a committed transaction's swapped for its new value (a primary only once
     * each secondary is), an aborted one's for its prior value, a pending one waited on (and aborted past the push
     * time). Returns once the key was read holding no intent.
     */
    public void resolve(final byte[] key)
    {
        final Waiting waiting = new Waiting();
        while (true)
        {
            final Versioned current = keys.read(key);
            final Intent intent = Intent.of(key, current);
            if (intent == null)
            {
                return;
            }
            if (intent.isPrimary())
            {
                if (!intent.isCommitted())
                {
                    waiting.onPending(key, current, intent);
                    continue;
                }
                finishSecondaries(intent);
                writeValue(key, current, intent.newValue, intent.newExpireAt);
                continue;
            }
            final Versioned primaryRead = keys.read(intent.primaryKey);
            final Intent primary = ofTransaction(intent.primaryKey, primaryRead, intent.txnId);
            if (primary != null && !primary.isCommitted())
            {
                waiting.onPending(intent.primaryKey, primaryRead, primary);
                continue;
            }
            if (primary != null)
            {
                writeValue(key, current, intent.newValue, intent.newExpireAt);
                continue;
            }
            if (stagingMayLand(intent, primaryRead))
            {
                if (waiting.onExpected(intent.primaryKey, primaryRead))
                {
                    writeValue(key, current, intent.prior, intent.priorExpireAt);
                }
                continue;
            }
            final Versioned again = keys.read(key);
            if (sameBlock(again, current))
            {
                // aborted: its primary moved on from it while this intent stood, and no secondary outlives a commit
                writeValue(key, again, intent.prior, intent.priorExpireAt);
            }
        }
    }

    /**
     * @return whether a parallel commit's secondary {@code intent} may yet be joined by its STAGING record: the primary
     * still holds, as a value, the very write its transaction's swap there expects (write ids never come back).
     */
    private static boolean stagingMayLand(final Intent intent, final Versioned primaryRead)
    {
        return intent.isParallel() && !intent.isPrimary() && primaryRead != null &&
            !KvBlockLayout.isIntent(primaryRead.expireAtMillis()) && primaryRead.writeId == intent.primaryExpected();
    }

    /**
     * The STAGING check (client/README.md, "Parallel commit", rule 3): its transaction is committed exactly when every
     * intent it lists stands. Each listed secondary is read: T's intent there stands; the very write id T's swap
     * expects is, once the record stood the push time, fenced (its value again under a new write id, so that the swap
     * can never land) and read again; anything else means T can never stand whole. All standing: the record is
     * decided COMMITTED; one never to stand: it is aborted, to its prior value. Either swap missing means another did
     * the same. Before the push time it only decides: a waiter that finds every intent in need not wait for the
     * coordinator's decision.
     *
     * @param pushed whether the record stood the push time: fence, and abort.
     */
    private void checkStaging(final byte[] primaryKey, final Versioned stagingRead, final Intent staging,
        final boolean pushed)
    {
        for (int i = 0; i < staging.secondaries.length; i++)
        {
            final byte[] secondary = staging.secondaries[i];
            for (int attempt = 0; ; attempt++)
            {
                final Versioned read = keys.read(secondary);
                final Intent intent = Intent.of(secondary, read);
                if (intent != null && intent.txnId == staging.txnId && !intent.isPrimary())
                {
                    break;
                }
                if (!pushed)
                {
                    return;
                }
                if (read == null || KvBlockLayout.isIntent(read.expireAtMillis()) ||
                    read.writeId != staging.expected[i])
                {
                    writeValue(primaryKey, stagingRead, staging.prior, staging.priorExpireAt);
                    return;
                }
                if (attempt == MAX_SWAPS)
                {
                    throw new TransactionConflictException("key " + KvErrors.describe(secondary) + " still held " +
                        "the write a STAGING transaction's swap expects after " + MAX_SWAPS + " fences");
                }
                fence(secondary, read);
            }
        }
        keys.swapExact(primaryKey, stagingRead, Intent.decided(stagingRead.value()), KvBlockLayout.INTENT);
    }

    /** @return true when the key's value was written again under a new write id, retiring {@code read}'s. */
    private boolean fence(final byte[] key, final Versioned read)
    {
        return keys.swapExact(key, read, read.value(), read.expiryWord());
    }

    /**
     * A committed primary is swapped for its value only once none of its transaction's secondaries holds its intent,
     * so that a primary holding something else always means the transaction aborted. Each secondary is read again
     * after its swap: a swap that missed (the key's block came back under another word, its node restarted) or whose
     * outcome is unknown (it throws) must not let the primary go first (the model check's counterexample).
     */
    void finishSecondaries(final Intent primary)
    {
        for (final byte[] secondary : primary.secondaries)
        {
            for (int attempt = 0; ; attempt++)
            {
                final Versioned read = keys.read(secondary);
                final Intent intent = Intent.of(secondary, read);
                if (intent == null || intent.txnId != primary.txnId || intent.isPrimary())
                {
                    break;
                }
                if (attempt == MAX_SWAPS)
                {
                    throw new TransactionConflictException("key " + KvErrors.describe(secondary) + " still held " +
                        "a committed transaction's intent after " + MAX_SWAPS + " swaps to its value");
                }
                writeValue(secondary, read, intent.newValue, intent.newExpireAt);
            }
        }
    }

    /**
     * Finish a committed transaction from its primary, if the primary still holds its COMMITTED record: each secondary
     * still holding its intent swapped for its value, then the primary. Waits on nothing (another transaction's intent
     * there, or none, ends it).
     */
    void finishCommitted(final byte[] primaryKey, final long txnId)
    {
        final Versioned read = keys.read(primaryKey);
        final Intent primary = ofTransaction(primaryKey, read, txnId);
        if (primary != null && primary.isCommitted())
        {
            finishSecondaries(primary);
            writeValue(primaryKey, read, primary.newValue, primary.newExpireAt);
        }
    }

    /**
     * A committed transaction's intents swapped for their values by its coordinator, after the answer (on the
     * client's resolution agent, {@link Resolutions}, or on the committing thread when its queue is full): each
     * secondary from the intent put in place, then the primary from its committed version. Raw swaps, which miss
     * rather than wait where another transaction's intent came since. The primary goes only once every secondary is
     * known to hold T's intent no more (swapped here, or by whoever met it first: a missed swap reads the key); one
     * still holding it, or a swap that failed (its outcome unknown), leaves the committed primary for whoever meets
     * it, whose resolution reads each secondary again first (the model check's rule).
     *
     * @param writes the transaction's keys, the primary first, each with the intent it {@code placed}.
     */
    void resolveCommitted(final List<TxnEntry> writes, final Versioned committedPrimary, final long txnId)
    {
        try
        {
            for (int i = 1; i < writes.size(); i++)
            {
                final TxnEntry secondary = writes.get(i);
                if (!resolveSecondary(secondary.key, secondary.placed, secondary.newValue, secondary.newExpireAt,
                    txnId))
                {
                    return;
                }
            }
            final TxnEntry primary = writes.getFirst();
            writeValue(primary.key, committedPrimary, primary.newValue, primary.newExpireAt);
        }
        catch (final RuntimeException ex)
        {
            // committed: whoever meets an intent left resolves it
        }
    }

    /**
     * Swap a committed transaction's secondary from the intent its coordinator put in place to its value.
     *
     * @return true once the key no longer holds that transaction's intent (swapped here, or by whoever met it first):
     * the primary may go; false when it still does (its block came back under another word), for whoever meets it.
     */
    boolean resolveSecondary(final byte[] key, final Versioned placed, final byte[] value, final long expireAt,
        final long txnId)
    {
        if (writeValue(key, placed, value, expireAt))
        {
            return true;
        }
        final Intent intent = Intent.of(key, keys.read(key));
        return intent == null || intent.txnId != txnId || intent.isPrimary();
    }

    /** Swap the key from {@code from} to a plain value, or to a tombstone when {@code value} is null. */
    boolean writeValue(final byte[] key, final Versioned from, final byte[] value, final long expireAt)
    {
        return value == null ? keys.swap(key, from, NO_VALUE, KvBlockLayout.TOMBSTONE) :
            keys.swap(key, from, value, expireAt);
    }

    /** @return the primary's intent when it is of that transaction, else null (the transaction aborted, or ended). */
    private static Intent ofTransaction(final byte[] primaryKey, final Versioned read, final long txnId)
    {
        final Intent intent = Intent.of(primaryKey, read);
        return intent != null && intent.isPrimary() && intent.txnId == txnId ? intent : null;
    }

    private LogicalValue live(final byte[] value, final long expireAt)
    {
        if (value == null || KvBlockLayout.isExpired(expireAt, keys.epochMillis()))
        {
            return null;
        }
        return new LogicalValue(value, expireAt);
    }

    private static boolean sameBlock(final Versioned again, final Versioned before)
    {
        return again != null && KvBlockLayout.isIntent(again.expireAtMillis()) && again.writeId == before.writeId &&
            Arrays.equals(again.value(), before.value());
    }

    /** One waiter's view of the pending primary it waits on: how long that same word has stood. */
    private final class Waiting
    {
        private long writeId = KvBlockLayout.NO_WRITE;
        private long since;
        private long pauseNanos;

        void onPending(final byte[] primaryKey, final Versioned primaryRead, final Intent primary)
        {
            final long now = keys.nanoTime();
            if (primaryRead.writeId != writeId)
            {
                writeId = primaryRead.writeId;
                since = now;
                pauseNanos = 1_000;
                if (primary.isStaging())
                {
                    // every intent may be in already, its decision not yet made
                    checkStaging(primaryKey, primaryRead, primary, false);
                    return;
                }
            }
            else if (now - since > pushNanos)
            {
                if (primary.isStaging())
                {
                    checkStaging(primaryKey, primaryRead, primary, true);
                    return;
                }
                // its coordinator died or stalled: abort it by the compare-and-set its commit would make
                writeValue(primaryKey, primaryRead, primary.prior, primary.priorExpireAt);
                return;
            }
            pause();
        }

        /**
         * The primary of a parallel commit's secondary still holds the write its STAGING swap expects: wait on it, and
         * past the push time fence it.
         *
         * @return true when the fence landed: the transaction can never commit.
         */
        boolean onExpected(final byte[] primaryKey, final Versioned primaryRead)
        {
            final long now = keys.nanoTime();
            if (primaryRead.writeId != writeId)
            {
                writeId = primaryRead.writeId;
                since = now;
                pauseNanos = 1_000;
            }
            else if (now - since > pushNanos)
            {
                return fence(primaryKey, primaryRead);
            }
            pause();
            return false;
        }

        private void pause()
        {
            LockSupport.parkNanos(pauseNanos);
            pauseNanos = Math.min(MAX_PAUSE_NANOS, pauseNanos * 2);
        }
    }
}
