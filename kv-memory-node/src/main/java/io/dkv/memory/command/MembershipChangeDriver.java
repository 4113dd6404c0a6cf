package io.dkv.memory.command;

import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.client.KvException;
import io.dkv.client.RefillReport;
import io.dkv.raas.Directory;
import io.dkv.raas.Membership;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;

import java.io.PrintStream;

/**
 * Runs a membership change begun at the MetaServer (a node added with --join, or one drained) through its phases, as
 * client/README.md ("Membership change") says: in each phase it first waits until every client acts in it (the view
 * lease plus an operation's timeout), copies the moving keys onto the members entering their placement in fill, settles
 * them in switch, and asks the MetaServer for the next phase. A pass that leaves keys unsettled runs again; a change
 * that cannot complete is aborted while it still can be (fill or switch), so that keys stay where they were.
 */
final class MembershipChangeDriver
{
    private static final int MAX_PASSES = 10;

    private final Raas raas;
    private final Directory directory;
    private final PrintStream out;

    MembershipChangeDriver(final Raas raas, final Directory directory, final PrintStream out)
    {
        this.raas = raas;
        this.directory = directory;
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
        try (KvClient client = KvClient.connect(raas, new KvClientContext()))
        {
            while (membership.phase() != Membership.STEADY)
            {
                final int phase = membership.phase();
                print("membership change in phase %s (epoch %d): waiting %,d ms for every client to act in it",
                    Membership.phaseName(phase), membership.epoch(), client.membershipPhaseGapMs());
                Thread.sleep(client.membershipPhaseGapMs());
                if (phase == Membership.FILL || phase == Membership.SWITCH)
                {
                    if (!passes(client, phase))
                    {
                        directory.abortMembershipChange();
                        print("membership change aborted: keys were still unsettled after %d passes; keys stay " +
                            "where they were", MAX_PASSES);
                        return false;
                    }
                }
                membership = directory.advanceMembership(phase);
            }
            print("membership change done in %,d ms: %s", (System.nanoTime() - started) / 1_000_000, membership);
            return true;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            print("membership change interrupted in phase %s; ./dkv meta change --abort or --advance goes on by hand",
                Membership.phaseName(membership.phase()));
            return false;
        }
        catch (final KvException | RaasException | UnsupportedOperationException ex)
        {
            print("membership change failed in phase %s: %s; ./dkv meta change --abort or --advance goes on by hand",
                Membership.phaseName(membership.phase()), ex.getMessage());
            return false;
        }
    }

    private boolean passes(final KvClient client, final int phase)
    {
        for (int pass = 1; pass <= MAX_PASSES; pass++)
        {
            final RefillReport report = client.fillMembershipChange();
            print("%s pass %d: %,d keys seen, %,d copied or cleared, %,d in place, %,d unsettled, %,d ms",
                Membership.phaseName(phase), pass, report.keysSeen(), report.refilled(), report.inPlace(),
                report.unsettled(), report.millis());
            if (report.complete())
            {
                return true;
            }
        }
        return false;
    }

    private void print(final String format, final Object... args)
    {
        out.printf(format + "%n", args);
        out.flush();
    }
}
