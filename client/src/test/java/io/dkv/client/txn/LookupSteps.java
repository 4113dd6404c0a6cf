package io.dkv.client.txn;

import java.util.List;

import io.dkv.client.txn.Action.Outcome;
import io.dkv.client.txn.Content.Intent;
import io.dkv.client.txn.Content.Plain;

/**
 * Reading one key through whatever it holds (the draft's value of a key, and "Reading through an intent"), one
 * register operation a step. A plain value is the answer. A COMMITTED primary's is its new
 * value. A PENDING primary is waited on: the reader reads again once that word moves, or, at any moment (the timeout
 * is a clock, and safety must not hang on one), pushes it: a compare-and-set from that PENDING word to its prior
 * value, which the coordinator's decision, the same compare-and-set, either beats or loses. A secondary sends the
 * reader to its primary: COMMITTED gives the new value, PENDING is waited on, anything else means, once the key is
 * read again and still holds the same intent, that the transaction aborted: the prior value.
 *
 * <p>A get stops at the value. Every other read (a transaction's, a put's) needs a plain value and its version, so it
 * resolves what it meets and reads again: a committed primary after each of its secondaries, a secondary to its
 * outcome's value by a compare-and-set from its version, which lands only if the key still holds the same intent.
 *
 * <p>Parallel commit's intents are recovered by the write ids they name. A STAGING record is waited on as a PENDING
 * word is; once the reader gives up, it runs the STAGING check: it reads each secondary the record lists; each holding
 * the transaction's intent, the transaction is committed, and the reader decides the record COMMITTED; one that does
 * not, and has moved on from the write id the transaction's compare-and-set there expects, can never hold it, and the
 * reader aborts the record; one that still holds that write id is fenced first (its value again, by a compare-and-set
 * from that write id, so that the transaction's can no longer land), then read again. A secondary sends the reader to
 * its primary: a STAGING record is waited on, then checked; COMMITTED is as above; a primary that still holds the
 * write id the transaction's compare-and-set there expects is waited on, then fenced; anything else means aborted.
 * Each recovery's compare-and-set is followed by reading the key again, but a fence of the primary that lands: the
 * transaction can then never commit, so the secondary is rolled back (a get answers its prior value).
 */
final class LookupSteps
{
    /**
     * How an actor reads.
     *
     * @param resolves               whether it resolves what it meets (every read but a get).
     * @param readsPriorWhilePending broken: answers a PENDING intent's prior value instead of waiting.
     * @param overwritesPending      broken: takes a PENDING intent's version as the version read, to write over it.
     * @param pushes                 whether it may give up waiting and abort a PENDING primary.
     * @param settlesUnknown         whether a secondary's resolution of unknown outcome is tried again before the
     *                               primary is resolved.
     * @param fencesSecondary        whether the STAGING check fences a secondary that still holds the write id the
     *                               transaction's compare-and-set expects before it aborts (broken: not).
     * @param fencesPrimary          whether recovery at a secondary fences a primary that still holds the write id the
     *                               transaction's compare-and-set expects (broken: takes it as aborted).
     */
    record Mode(boolean resolves, boolean readsPriorWhilePending, boolean overwritesPending, boolean pushes,
        boolean settlesUnknown, boolean fencesSecondary, boolean fencesPrimary)
    {
    }

    /** The actor a lookup runs for: where it keeps the lookup, and what it does with the answer. */
    interface Owner
    {
        TxnState next(TxnState state, Lookup lookup);

        TxnState found(TxnState state, int value, int version);
    }

    private LookupSteps()
    {
    }

    static void actions(final TxnState state, final Lookup lookup, final Mode mode, final Owner owner,
        final List<Action> out)
    {
        final int key = lookup.key();
        final String name = Values.key(key);
        switch (lookup.phase())
        {
            case READ -> out.add(new Action.Read("reads " + name, key,
                (s, slot) -> met(s, key, slot, mode, owner)));
            case PRIMARY -> out.add(new Action.Read("reads " + Values.key(lookup.seen().primaryKey()) + ", the " +
                "primary of " + name + "'s intent", lookup.seen().primaryKey(),
                (s, slot) -> primaryRead(s, lookup, slot, mode, owner)));
            case RECHECK -> out.add(new Action.Read("reads " + name + " again", key,
                (s, slot) -> rechecked(s, lookup, slot, mode, owner)));
            case SETTLE -> out.add(new Action.Cas("resolves " + name, key, lookup.version(),
                new Plain(lookup.value()), (s, outcome, version) -> owner.next(s, Lookup.read(key))));
            case WAIT -> waiting(state, lookup, mode, owner, out);
            case SECONDARIES -> secondaries(lookup, owner, out);
            case SECONDARY_CAS -> out.add(new Action.Cas("resolves " + Values.key(lookup.other()) + " before the " +
                "primary " + name, lookup.other(), lookup.otherVersion(), new Plain(lookup.value()),
                (s, outcome, version) -> owner.next(s, lookup.secondariesLeft(
                    outcome == Outcome.UNKNOWN && mode.settlesUnknown() ? lookup.left() :
                    lookup.left() & ~(1 << lookup.other())))));
            case CHECK -> check(lookup, mode, owner, "", out);
            case FENCE -> out.add(new Action.Cas("fences " + Values.key(lookup.other()) + " at the write id T" +
                lookup.seen().txn() + "'s compare-and-set there expects", lookup.other(), lookup.otherVersion(),
                new Plain(lookup.value()), (s, outcome, version) -> owner.next(s, lookup.checking(lookup.left()))));
            case STAGING_ABORT -> out.add(new Action.Cas("aborts T" + lookup.seen().txn() + "'s STAGING record at " +
                Values.key(lookup.seen().primaryKey()), lookup.seen().primaryKey(), lookup.version(),
                new Plain(lookup.seen().prior()), (s, outcome, version) -> owner.next(s, Lookup.read(key))));
            default -> throw new IllegalStateException(lookup.toString());
        }
    }

    /** What the key holds, read: a value, or an intent to follow. */
    private static TxnState met(final TxnState state, final int key, final Slot slot, final Mode mode,
        final Owner owner)
    {
        if (slot.content() instanceof Plain plain)
        {
            return owner.found(state, plain.value(), slot.version());
        }
        final Intent intent = (Intent)slot.content();
        if (intent.stagingPrimary())
        {
            return owner.next(state, Lookup.waitingOn(key, 0, key, slot.version(), intent, 0));
        }
        if (intent.pendingPrimary())
        {
            return pending(state, key, slot.version(), intent.prior(), key, slot.version(), intent, mode, owner);
        }
        if (intent.primary())
        {
            return mode.resolves() ?
                owner.next(state, Lookup.secondaries(key, slot.version(), intent, intent.secondaries())) :
                owner.found(state, intent.newValue(), slot.version());
        }
        return owner.next(state, Lookup.primary(key, slot.version(), intent));
    }

    private static TxnState primaryRead(final TxnState state, final Lookup lookup, final Slot slot, final Mode mode,
        final Owner owner)
    {
        final Intent seen = lookup.seen();
        final int key = lookup.key();
        if (slot.content() instanceof Intent primary && primary.txn() == seen.txn() && primary.primary())
        {
            if (primary.stagingPrimary())
            {
                return owner.next(state, Lookup.waitingOn(key, 0, seen.primaryKey(), slot.version(), primary, 0));
            }
            if (!primary.committed())
            {
                return pending(state, key, lookup.version(), seen.prior(), seen.primaryKey(), slot.version(),
                    primary, mode, owner);
            }
            return mode.resolves() ? owner.next(state, Lookup.settle(key, lookup.version(), seen.newValue())) :
                owner.found(state, seen.newValue(), lookup.version());
        }
        if (seen.parallel() && mode.fencesPrimary() && slot.version() == seen.expects(seen.primaryKey()) &&
            slot.content() instanceof Plain plain)
        {
            // the transaction's compare-and-set of its STAGING record may still land
            return owner.next(state, Lookup.waitingOn(key, lookup.version(), seen.primaryKey(), slot.version(), seen,
                plain.value()));
        }
        // the primary holds something else: aborted, if the key still holds the same intent
        return mode.resolves() ? owner.next(state, Lookup.settle(key, lookup.version(), seen.prior())) :
            owner.next(state, Lookup.recheck(key, lookup.version(), seen));
    }

    private static TxnState rechecked(final TxnState state, final Lookup lookup, final Slot slot, final Mode mode,
        final Owner owner)
    {
        if (slot.version() != lookup.version())
        {
            return met(state, lookup.key(), slot, mode, owner);
        }
        final Intent seen = lookup.seen();
        final boolean pending = state.store().slot(seen.primaryKey()).content() instanceof Intent primary &&
            primary.txn() == seen.txn() && primary.pendingPrimary();
        final boolean committed = seen.parallel() && state.ghost().txn(seen.txn()).outcome() == Ghost.COMMITTED;
        final TxnState checked = pending ? state.broken("a get answered " + Values.key(lookup.key()) + "'s prior " +
            "value as if T" + seen.txn() + " aborted while its primary is PENDING (invariant 5)") : committed ?
            state.broken("a get answered " + Values.key(lookup.key()) + "'s prior value though T" + seen.txn() +
            " committed (P1)") : state;
        return owner.found(checked, seen.prior(), lookup.version());
    }

    /** The key holds an intent whose transaction's primary is PENDING: wait on that word. */
    private static TxnState pending(final TxnState state, final int key, final int version, final int prior,
        final int primaryKey, final int pendingVersion, final Intent primary, final Mode mode, final Owner owner)
    {
        if (mode.readsPriorWhilePending())
        {
            return owner.found(state.broken("a get answered " + Values.key(key) + "'s prior value while T" +
                primary.txn() + " is PENDING (invariant 5)"), prior, version);
        }
        if (mode.overwritesPending())
        {
            return owner.found(state, prior, version);
        }
        return owner.next(state, Lookup.waiting(key, primaryKey, pendingVersion, primary.prior()));
    }

    private static void waiting(final TxnState state, final Lookup lookup, final Mode mode, final Owner owner,
        final List<Action> out)
    {
        final int key = lookup.key();
        final String waitedOn = Values.key(lookup.other());
        if (state.store().slot(lookup.other()).version() != lookup.otherVersion())
        {
            final String word = lookup.seen() == null ? "PENDING word" : lookup.seen().stagingPrimary() ?
                "STAGING record" : "write id";
            out.add(new Action.Read("sees " + waitedOn + "'s " + word + " gone and reads " + Values.key(key) +
                " again", key, (s, slot) -> met(s, key, slot, mode, owner)));
        }
        if (!mode.pushes())
        {
            return;
        }
        final Intent on = lookup.seen();
        if (on == null)
        {
            out.add(new Action.Cas("gives up waiting and aborts the PENDING primary at " + waitedOn,
                lookup.other(), lookup.otherVersion(), new Plain(lookup.value()),
                (s, outcome, version) -> owner.next(s, Lookup.read(key))));
        }
        else if (on.stagingPrimary())
        {
            check(Lookup.check(key, lookup.otherVersion(), on), mode, owner, "gives up waiting on the STAGING record " +
                "at " + waitedOn + " and ", out);
        }
        else
        {
            // once the fence is in, T can never commit: the secondary is rolled back (a get answers its prior value)
            out.add(new Action.Cas("gives up waiting and fences " + waitedOn + " at the write id T" + on.txn() +
                "'s compare-and-set there expects", lookup.other(), lookup.otherVersion(), new Plain(lookup.value()),
                (s, outcome, version) -> outcome != Outcome.DONE ? owner.next(s, Lookup.read(key)) :
                    mode.resolves() ? owner.next(s, Lookup.settle(key, lookup.version(), on.prior())) :
                    owner.found(s, on.prior(), lookup.version())));
        }
    }

    /**
     * The STAGING check's next step: read a secondary the record lists, any not read yet (they are read in one round,
     * so in any order), or, each holding the transaction's intent, decide the record COMMITTED.
     */
    private static void check(final Lookup lookup, final Mode mode, final Owner owner, final String prefix,
        final List<Action> out)
    {
        final Intent staging = lookup.seen();
        final String primary = Values.key(staging.primaryKey());
        if (lookup.left() == 0)
        {
            out.add(new Action.Cas(prefix + "decides T" + staging.txn() + "'s STAGING record at " + primary +
                " COMMITTED, each of its intents in", staging.primaryKey(), lookup.version(),
                staging.decidedCommitted(), (s, outcome, version) -> owner.next(s, Lookup.read(lookup.key()))));
            return;
        }
        for (int key = 0; key < KeyInts.MAX_KEYS; key++)
        {
            final int secondary = key;
            if ((lookup.left() & (1 << secondary)) != 0)
            {
                out.add(new Action.Read(prefix + "checks " + Values.key(secondary) + ", a secondary of T" +
                    staging.txn() + "'s STAGING record at " + primary, secondary,
                    (s, slot) -> checked(s, lookup, secondary, slot, mode, owner)));
            }
        }
    }

    private static TxnState checked(final TxnState state, final Lookup lookup, final int secondary, final Slot slot,
        final Mode mode, final Owner owner)
    {
        final Intent staging = lookup.seen();
        if (slot.content().isIntentOf(staging.txn(), false))
        {
            return owner.next(state, lookup.checking(lookup.left() & ~(1 << secondary)));
        }
        if (mode.fencesSecondary() && slot.version() == staging.expects(secondary) &&
            slot.content() instanceof Plain plain)
        {
            // the transaction's compare-and-set of its intent there may still land
            return owner.next(state, lookup.fencing(secondary, slot.version(), plain.value()));
        }
        return owner.next(state, lookup.abortingStaging());
    }

    /** A committed primary: each secondary still holding its intent is resolved, then the primary, then read again. */
    private static void secondaries(final Lookup lookup, final Owner owner, final List<Action> out)
    {
        final int key = lookup.key();
        final Intent committed = lookup.seen();
        if (lookup.left() == 0)
        {
            out.add(new Action.Cas("resolves the committed primary " + Values.key(key), key, lookup.version(),
                new Plain(committed.newValue()), (s, outcome, version) -> owner.next(s, Lookup.read(key))));
            return;
        }
        final int secondary = Integer.numberOfTrailingZeros(lookup.left());
        out.add(new Action.Read("reads " + Values.key(secondary) + ", a secondary of the committed primary " +
            Values.key(key), secondary, (s, slot) -> slot.content().isIntentOf(committed.txn(), false) ?
                owner.next(s, lookup.resolving(secondary, slot.version(), ((Intent)slot.content()).newValue())) :
                owner.next(s, lookup.secondariesLeft(lookup.left() & ~(1 << secondary)))));
    }
}
