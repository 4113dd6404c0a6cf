package io.dkv.meta.command;

import io.dkv.raas.Membership;
import io.dkv.raas.Raas;
import io.dkv.raas.meta.MetaMessageReader;
import io.dkv.raas.meta.MetaMessageWriter;
import io.dkv.raas.meta.MetaRpcClient;
import io.dkv.raas.meta.MetaRpcDescriptor;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dkv meta change}: begin, advance or abort a membership change that moves keys, by hand, and print the
 * membership after it. The copying of keys is not done here: whoever drives the change copies them in FILL and
 * settles them in SWITCH before advancing.
 */
@Command(name = "change", mixinStandardHelpOptions = true,
    description = {
        "Begin, advance or abort a membership change of the memory tier, and print the membership after it " +
            "(as ./dkv meta members does).",
        "A change goes fill, switch, handover, cleanup, steady; each step waits until every client reads the " +
            "membership anew (its view lease and an operation's timeout) and, in fill and handover, until the moving " +
            "keys are copied, and then sealed: advance by hand only when that is done. From handover on a change " +
            "can only complete.",
        "Asking again for what is so already (the same --add or --drain in fill, --advance from a phase already " +
            "left) changes nothing and succeeds; anything else the membership does not allow is refused, naming the " +
            "phase it is in."
    })
public final class MetaChangeCommand extends MetaServerCall
{
    static final class Action
    {
        @Option(names = "--add", paramLabel = "ID",
            description = "Add a registered memory node that is no member: placed after only, the change in fill.")
        Long add;

        @Option(names = "--drain", paramLabel = "ID",
            description = "Drain a live member (not the last): placed before only, the change in fill; it leaves " +
                "the membership at steady.")
        Long drain;

        @Option(names = "--advance", paramLabel = "PHASE",
            description = "Move the change from PHASE (fill, switch, handover or cleanup) to the next; at steady " +
                "added members are placed and drained ones leave.")
        String advance;

        @Option(names = "--abort",
            description = "Give up the change (in fill or switch only): back to steady over the members placed before.")
        boolean abort;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Action action;

    String call(final Raas raas, final MetaRpcClient client)
    {
        final MetaMessageWriter request;
        if (action.add != null)
        {
            request = client.begin(MetaRpcDescriptor.TYPE_BEGIN_ADD).putLong(action.add);
        }
        else if (action.drain != null)
        {
            request = client.begin(MetaRpcDescriptor.TYPE_BEGIN_DRAIN).putLong(action.drain);
        }
        else if (action.advance != null)
        {
            request = client.begin(MetaRpcDescriptor.TYPE_ADVANCE_MEMBERSHIP).putInt(phase(action.advance));
        }
        else
        {
            request = client.begin(MetaRpcDescriptor.TYPE_ABORT_MEMBERSHIP);
        }
        final MetaMessageReader reply = client.call();
        return MetaMembersCommand.describe(reply.getMembership());
    }

    /** @return the phase of that name (as {@link Membership#phaseName} writes it). */
    int phase(final String name)
    {
        for (final int phase : new int[]{Membership.FILL, Membership.SWITCH, Membership.HANDOVER, Membership.CLEANUP})
        {
            if (Membership.phaseName(phase).equalsIgnoreCase(name))
            {
                return phase;
            }
        }
        throw new picocli.CommandLine.ParameterException(spec.commandLine(),
            "--advance takes the phase the change is in: fill, switch, handover or cleanup, not '" + name + "'");
    }
}
