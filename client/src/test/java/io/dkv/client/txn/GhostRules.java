package io.dkv.client.txn;

import io.dkv.client.txn.Content.Intent;
import io.dkv.client.txn.Content.Plain;

/**
 * Checks each write, as it lands, against the draft's "Invariants", and keeps the ghost record they need. A write that
 * replaces an intent must be what the rules allow in its place: a PENDING word only its decision (COMMITTED, or the
 * prior value: abort); a COMMITTED primary only its new value once no secondary of the transaction is left; a
 * secondary only its new value once its transaction committed, or its prior value while it has not. A secondary may
 * land only after its primary did, and a transaction may commit only after its serialization point, with every key it
 * read only unchanged there and every secondary still in place.
 *
 * <p>Parallel commit's rules (P1 to P5): a transaction is committed exactly when every key it writes holds its intent
 * at once (P1). Its STAGING record is replaced only by its COMMITTED form once it committed, or by its prior value
 * once it can never commit: some secondary neither holds its intent nor the write id its compare-and-set there expects
 * (P2). A secondary is resolved only once its primary holds the COMMITTED record, and rolled back only once its
 * transaction can never commit: the primary neither holds its record nor the write id its compare-and-set expects
 * (P3). A COMMITTED primary is resolved last (P4, invariant 3). A coordinator answers committed only once committed,
 * and failed only if not (P5, checked where it answers).
 */
final class GhostRules
{
    private GhostRules()
    {
    }

    /** @return the ghost once {@code written} replaces what the key holds in {@code before}, leaving {@code after}. */
    static Ghost afterWrite(final TxnScope scope, final TxnState before, final int key, final Content written,
        final Store after)
    {
        Ghost ghost = before.ghost();
        if (before.store().slot(key).content() instanceof Intent replaced)
        {
            ghost = replaced.parallel() && !(replaced.primary() && replaced.committed()) ?
                parallelReplaced(ghost, key, replaced, written, before.store()) :
                replaced(scope, ghost, key, replaced, written, before.store(), after);
        }
        if (written instanceof Intent intent && !intent.committed())
        {
            ghost = swappedIn(scope, ghost, key, intent, before, after);
        }
        return ghost;
    }

    private static Ghost replaced(final TxnScope scope, final Ghost ghost, final int key, final Intent old,
        final Content written, final Store before, final Store after)
    {
        final int txn = old.txn();
        final String role = old.primary() ? (old.committed() ? "COMMITTED" : "PENDING") + " primary" :
            "secondary intent";
        final String at = "T" + txn + "'s " + role + " at " + Values.key(key);
        final int value = written instanceof Plain plain ? plain.value() : -1;
        if (old.pendingPrimary())
        {
            final boolean commits = written instanceof Intent next && next.txn() == txn && next.committed() ||
                value == old.newValue() && scope.workload(txn - 1).secondaries() == 0;
            if (!commits && value != old.prior())
            {
                return ghost.withBroken(at + " was replaced by " + written + ": nothing but its decision may name " +
                    "that word (invariant 2)");
            }
            return decided(scope, ghost, txn, commits, after);
        }
        if (old.primary())
        {
            if (value != old.newValue())
            {
                return ghost.withBroken(at + " was replaced by " + written + ", not resolved (invariant 3)");
            }
            final int left = holding(txn, scope.workload(txn - 1).secondaries(), after);
            return left == 0 ? ghost : ghost.withBroken(at + " was resolved while its intent at " +
                Values.key(Integer.numberOfTrailingZeros(left)) + " remains: the primary must outlive them " +
                "(invariant 3)");
        }
        final int outcome = ghost.txn(txn).outcome();
        if (value == old.newValue())
        {
            return outcome == Ghost.COMMITTED ? ghost :
                ghost.withBroken(at + " was rolled forward though T" + txn + " has not committed");
        }
        if (value == old.prior())
        {
            if (outcome == Ghost.COMMITTED)
            {
                return ghost.withBroken(at + " was rolled back though T" + txn + " committed: its write is lost " +
                    "(invariant 3)");
            }
            final boolean undecided = before.slot(old.primaryKey()).content() instanceof Intent primary &&
                primary.txn() == txn && primary.pendingPrimary();
            return undecided ? ghost.withBroken(at + " was rolled back while T" + txn + " is undecided") : ghost;
        }
        return ghost.withBroken(at + " was replaced by " + written + ", not resolved (writers resolve first)");
    }

    /** Parallel commit: what may replace a STAGING record (P2) or a secondary intent (P3). */
    private static Ghost parallelReplaced(final Ghost ghost, final int key, final Intent old, final Content written,
        final Store before)
    {
        final int txn = old.txn();
        final Ghost.Txn t = ghost.txn(txn);
        final String who = "T" + txn;
        final String at = who + "'s " + (old.primary() ? "STAGING record" : "secondary intent") + " at " +
            Values.key(key);
        final int value = written instanceof Plain plain ? plain.value() : -1;
        if (old.primary())
        {
            if (written instanceof Intent next && next.txn() == txn && next.committed())
            {
                return t.outcome() == Ghost.COMMITTED ? ghost : ghost.withBroken(at + " was decided COMMITTED " +
                    "though not every intent of " + who + " was in (P2)");
            }
            if (value != old.prior())
            {
                return ghost.withBroken(at + " was replaced by " + written + ": nothing but its decision may " +
                    "replace it (P2)");
            }
            if (t.outcome() == Ghost.COMMITTED)
            {
                return ghost.withBroken(at + " was aborted though every intent of " + who + " was in: it had " +
                    "committed (P2)");
            }
            for (int secondary = 0; secondary < before.keys(); secondary++)
            {
                final Slot slot = before.slot(secondary);
                if ((old.secondaries() & (1 << secondary)) != 0 && !slot.content().isIntentOf(txn, false) &&
                    slot.version() != old.expects(secondary))
                {
                    return ghost.with(txn, new Ghost.Txn(t.primaryPlaced(), t.placed(), Ghost.ABORTED,
                        t.serialized(), t.clean()));
                }
            }
            return ghost.withBroken(at + " was aborted though each of its secondaries holds its intent or the write " +
                "id its compare-and-set there expects: it may still commit (P2)");
        }
        final Slot primary = before.slot(old.primaryKey());
        final boolean recordThere = primary.content() instanceof Intent record && record.txn() == txn &&
            record.primary();
        if (value == old.newValue())
        {
            return recordThere && ((Intent)primary.content()).committed() ? ghost : ghost.withBroken(at + " was " +
                "resolved before " + who + "'s primary was decided COMMITTED (P3)");
        }
        if (value != old.prior())
        {
            return ghost.withBroken(at + " was replaced by " + written + ", not resolved (writers resolve first)");
        }
        if (t.outcome() == Ghost.COMMITTED)
        {
            return ghost.withBroken(at + " was rolled back though " + who + " committed: its write is lost (P3)");
        }
        if (recordThere)
        {
            return ghost.withBroken(at + " was rolled back while " + who + "'s primary holds its STAGING record (P3)");
        }
        return primary.version() != old.expects(old.primaryKey()) ? ghost : ghost.withBroken(at + " was rolled " +
            "back while " + who + "'s primary holds the write id its compare-and-set expects: it may still land (P3)");
    }

    private static Ghost decided(final TxnScope scope, final Ghost ghost, final int txn, final boolean commits,
        final Store after)
    {
        final Ghost.Txn t = ghost.txn(txn);
        final String who = "T" + txn;
        if (t.outcome() != Ghost.UNDECIDED)
        {
            return ghost.withBroken(who + " was decided twice (invariant 2)");
        }
        final Ghost next = ghost.with(txn, new Ghost.Txn(t.primaryPlaced(), t.placed(),
            commits ? Ghost.COMMITTED : Ghost.ABORTED, t.serialized(), t.clean()));
        if (!commits)
        {
            return next;
        }
        if (!t.serialized())
        {
            return next.withBroken(who + " committed before every key it writes held its intent (invariant 4)");
        }
        if (!t.clean())
        {
            return next.withBroken(who + " committed though a key it read only had changed at its serialization " +
                "point (invariant 4)");
        }
        final int gone = t.placed() & ~holding(txn, t.placed(), after);
        return gone == 0 ? next : next.withBroken(who + " committed though its intent at " +
            Values.key(Integer.numberOfTrailingZeros(gone)) + " is gone (invariant 3)");
    }

    private static Ghost swappedIn(final TxnScope scope, final Ghost ghost, final int key, final Intent intent,
        final TxnState before, final Store after)
    {
        final int txn = intent.txn();
        final Ghost.Txn t = ghost.txn(txn);
        Ghost next = ghost;
        if (!intent.primary() && !t.primaryPlaced() && !intent.parallel())
        {
            next = next.withBroken("T" + txn + "'s secondary at " + Values.key(key) + " was swapped in before its " +
                "primary (invariant 1)");
        }
        final boolean primaryPlaced = t.primaryPlaced() || intent.primary();
        final int placed = intent.primary() ? t.placed() : t.placed() | 1 << key;
        final Workload workload = scope.workload(txn - 1);
        boolean serialized = t.serialized();
        boolean clean = t.clean();
        int outcome = t.outcome();
        if (!serialized && holdsAny(txn, workload.writeMask(), after))
        {
            serialized = true;
            clean = before.actor(txn - 1) instanceof Coordinator coordinator &&
                unchanged(workload.validated(), coordinator.readVersions(), after);
            if (intent.parallel())
            {
                // parallel commit: every intent in is the commit (P1)
                if (outcome != Ghost.UNDECIDED)
                {
                    next = next.withBroken("every intent of T" + txn + " is in, though it was aborted (P2)");
                }
                outcome = Ghost.COMMITTED;
            }
        }
        return next.with(txn, new Ghost.Txn(primaryPlaced, placed, outcome, serialized, clean));
    }

    /** @return whether every key of the mask holds an intent of the transaction, whatever its role. */
    private static boolean holdsAny(final int txn, final int mask, final Store store)
    {
        for (int key = 0; key < store.keys(); key++)
        {
            if ((mask & (1 << key)) != 0 &&
                !(store.slot(key).content() instanceof Intent intent && intent.txn() == txn))
            {
                return false;
            }
        }
        return true;
    }

    /** @return the keys of the mask that hold a secondary intent of the transaction. */
    private static int holding(final int txn, final int mask, final Store store)
    {
        int holding = 0;
        for (int key = 0; key < store.keys(); key++)
        {
            if ((mask & (1 << key)) != 0 && store.slot(key).content().isIntentOf(txn, false))
            {
                holding |= 1 << key;
            }
        }
        return holding;
    }

    private static boolean unchanged(final int keys, final KeyInts versions, final Store store)
    {
        for (int key = 0; key < store.keys(); key++)
        {
            if ((keys & (1 << key)) != 0 && store.slot(key).version() != versions.get(key))
            {
                return false;
            }
        }
        return true;
    }
}
