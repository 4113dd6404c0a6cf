package io.dkv.memory.command;

import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.client.KvException;
import io.dkv.client.RefillReport;
import io.dkv.raas.Directory;
import io.dkv.raas.Membership;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import io.dkv.raas.meta.MetaRpcDescriptor;
import io.dkv.raas.meta.MetaRpcException;

import java.io.PrintStream;
import java.util.function.Supplier;

/**
 * Runs a membership change begun at the MetaServer (a node added with --join, or one drained) through its phases, as
 * client/README.md ("Membership change") says: in each phase it first waits until every client acts in it (the view
 * lease plus an operation's timeout), copies the moving keys onto the members entering their placement in fill, seals
 * them in handover (client/README.md, "The handover"), and asks the MetaServer for the next phase. A pass that leaves
 * keys unsettled runs again; a fill that cannot complete is aborted, so that keys stay where they were. From handover
 * on a change can only complete: its passes go on until every moving key is sealed (a replica down holds its keys).
 * <p>
 * A change left half way keeps the copies of its moving keys apart, so what fails for a moment is tried again: a
 * MetaServer call that got no answer (an answered refusal is final), a pass that met a node that did not answer.
 */
final class MembershipChangeDriver
{
    /** Passes that leave keys unsettled before the change is aborted, once they have also run for a phase gap. */
    private static final int MAX_PASSES = 10;
    /** How long a MetaServer call that gets no answer is tried again, and the pause between tries. */
    private static final long RETRY_BUDGET_MS = 60_000;
    private static final long RETRY_PAUSE_MS = 500;
    /** The pause after a pass that left keys unsettled: their writers finish, or run past their time, meanwhile. */
    private static final long UNSETTLED_PAUSE_MS = 100;

    private final Raas raas;
    private final Directory directory;
    private final KvClientContext clientContext;
    private final PrintStream out;

    MembershipChangeDriver(final Raas raas, final Directory directory, final KvClientContext clientContext,
        final PrintStream out)
    {
        this.raas = raas;
        this.directory = directory;
        this.clientContext = clientContext;
        this.out = out;
    }

    /** @return true when the change reached its steady end; false when it was aborted or failed, as printed. */
    boolean run()
    {
        final long started = System.nanoTime();
        Membership membership = directory.membership();
        if (membership.phase() == Membership.STEADY)
        {
            out.printf("no membership change runs (membership epoch %d)%n", membership.epoch());
            return true;
        }
        try (KvClient client = KvClient.connect(raas, clientContext))
        {
            while (membership.phase() != Membership.STEADY)
            {
                final int phase = membership.phase();
                print("membership change in phase %s (epoch %d): waiting %,d ms for every client to act in it",
                    Membership.phaseName(phase), membership.epoch(), client.membershipPhaseGapMs());
                Thread.sleep(client.membershipPhaseGapMs());
                if (phase == Membership.HANDOVER)
                {
                    seals(client);
                }
                if (phase == Membership.FILL)
                {
                    if (!passes(client, phase))
                    {
                        abort(membership);
                        print("membership change aborted: keys were still unsettled after %d passes; keys stay " +
                            "where they were", MAX_PASSES);
                        return false;
                    }
                }
                membership = retried("advance the membership from " + Membership.phaseName(phase),
                    () -> directory.advanceMembership(phase));
            }
            print("membership change done in %,d ms: %s", (System.nanoTime() - started) / 1_000_000, membership);
            return true;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            print("membership change interrupted in phase %s; %s", Membership.phaseName(membership.phase()),
                byHand(membership.phase()));
            return false;
        }
        catch (final KvException | RaasException | UnsupportedOperationException ex)
        {
            print("membership change failed in phase %s: %s; %s", Membership.phaseName(membership.phase()),
                ex.getMessage(), byHand(membership.phase()));
            return false;
        }
    }

    private boolean passes(final KvClient client, final int phase) throws InterruptedException
    {
        final long started = System.nanoTime();
        // fast passes over few keys could all meet the same write in flight: passes go on for a phase gap at least,
        // by which time its writer has finished or run past its time, and the next pass rolls it forward
        final long leastNanos = client.membershipPhaseGapMs() * 1_000_000L;
        for (int pass = 1; pass <= MAX_PASSES || System.nanoTime() - started < leastNanos; pass++)
        {
            final RefillReport report;
            try
            {
                report = client.fillMembershipChange();
            }
            catch (final KvException ex)
            {
                print("%s pass %d failed: %s; passing again", Membership.phaseName(phase), pass, ex.getMessage());
                Thread.sleep(RETRY_PAUSE_MS);
                continue;
            }
            print("%s pass %d: %,d keys seen, %,d copied or cleared, %,d in place, %,d unsettled, %,d ms " +
                "(%,d keys one by one, the rest in batches)", Membership.phaseName(phase), pass, report.keysSeen(),
                report.refilled(), report.inPlace(), report.unsettled(), report.millis(), report.alone());
            if (report.complete())
            {
                return true;
            }
            Thread.sleep(UNSETTLED_PAUSE_MS);
        }
        return false;
    }

    /** @return what goes on with a change left in the phase. */
    private static String byHand(final int phase)
    {
        return phase == Membership.FILL || phase == Membership.SWITCH ?
            "./dkv memory-node --drive goes on with it, ./dkv meta change --abort gives it up" :
            "./dkv memory-node --drive goes on with it (from handover on a change can only complete)";
    }

    /** Seal every moving key, pass after pass: from handover on a change can only complete. */
    private void seals(final KvClient client) throws InterruptedException
    {
        for (int pass = 1; ; pass++)
        {
            final RefillReport report;
            try
            {
                report = client.fillMembershipChange();
            }
            catch (final KvException ex)
            {
                print("handover pass %d failed: %s; passing again", pass, ex.getMessage());
                Thread.sleep(RETRY_PAUSE_MS);
                continue;
            }
            print("handover pass %d: %,d keys seen, %,d sealed, %,d sealed before, %,d unsettled, %,d ms", pass,
                report.keysSeen(), report.refilled(), report.inPlace(), report.unsettled(), report.millis());
            if (report.complete())
            {
                return;
            }
            Thread.sleep(pass < MAX_PASSES ? UNSETTLED_PAUSE_MS : RETRY_PAUSE_MS);
        }
    }

    /**
     * Abort the change, asking again while the MetaServer does not answer. An abort applied whose answer was lost is
     * refused when asked again (no change runs any more): then the membership read back tells whether it was this
     * abort that took effect ({@link AbortOutcome}), and if so the change is aborted.
     *
     * @param changing the membership in the change's phase, as the driver last read it.
     * @return the membership after the abort.
     * @throws RaasException the refusal the MetaServer answered when the membership is not the abort's outcome, or
     *                       the last failure once the budget is spent.
     */
    Membership abort(final Membership changing) throws InterruptedException
    {
        final boolean[] unanswered = new boolean[1];
        try
        {
            return retried("abort the membership change", directory::abortMembershipChange, unanswered);
        }
        catch (final MetaRpcException ex)
        {
            if (!unanswered[0] || ex.status() != MetaRpcDescriptor.STATUS_CONFLICT)
            {
                throw ex;
            }
            final Membership now = directory.membership();
            if (!AbortOutcome.tookEffect(changing, now))
            {
                throw ex;
            }
            print("the abort asked again was refused (%s), but an earlier try took effect: %s", ex.getMessage(), now);
            return now;
        }
    }

    private Membership retried(final String what, final Supplier<Membership> call) throws InterruptedException
    {
        return retried(what, call, new boolean[1]);
    }

    /**
     * A MetaServer call, tried again while it gets no answer, for up to {@link #RETRY_BUDGET_MS}. An advance is
     * idempotent (one whose answer was lost finds the next phase); an abort is not (see {@link #abort}).
     *
     * @param unanswered set to true once a try got no answer: a refusal after it may be that try's effect.
     * @throws RaasException the refusal the MetaServer answered, or the last failure once the budget is spent.
     */
    private Membership retried(final String what, final Supplier<Membership> call, final boolean[] unanswered)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + RETRY_BUDGET_MS * 1_000_000L;
        while (true)
        {
            try
            {
                return call.get();
            }
            catch (final MetaRpcException ex)
            {
                throw ex;
            }
            catch (final RaasException ex)
            {
                unanswered[0] = true;
                final long leftMs = (deadline - System.nanoTime()) / 1_000_000L;
                if (leftMs <= RETRY_PAUSE_MS)
                {
                    throw ex;
                }
                print("could not %s: %s; trying again in %,d ms (%,d ms left)", what, ex.getMessage(), RETRY_PAUSE_MS,
                    leftMs);
                Thread.sleep(RETRY_PAUSE_MS);
            }
        }
    }

    private void print(final String format, final Object... args)
    {
        out.printf(format + "%n", args);
        out.flush();
    }
}
