package io.dkv.meta.command;

import io.dkv.raas.Membership;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.meta.MemberRecord;
import io.dkv.raas.meta.MembershipRecord;
import io.dkv.raas.meta.MetaMessageReader;
import io.dkv.raas.meta.MetaRpcClient;
import io.dkv.raas.meta.MetaRpcDescriptor;
import io.dkv.raas.meta.MetaTableReader;
import picocli.CommandLine.Command;

/**
 * {@code dkv meta members}: the memory tier's membership as a running MetaServer publishes it, read
 * the way clients read it: a bootstrap RPC says where the tables are, one one-sided READ copies the
 * members block.
 */
@Command(name = "members", mixinStandardHelpOptions = true,
    description = {
        "Print the memory tier's membership a running MetaServer publishes: its epoch, the replica count, and each " +
            "member's node id, state (live, joining, down, leaving) and incarnation; while a membership change runs " +
            "also its phase (fill, switch, cleanup) and each member's placement (placed, entering, leaving).",
        "Read one-sided from the server's tables, as clients read it (authenticated with the cluster secret)."
    })
public final class MetaMembersCommand extends MetaServerCall
{
    String call(final Raas raas, final MetaRpcClient client)
    {
        client.begin(MetaRpcDescriptor.TYPE_BOOTSTRAP);
        final MetaMessageReader reply = client.call();
        reply.getLong();
        reply.getLong();
        reply.getLong();
        reply.getInt();
        final RemoteRegion tables = reply.getRegion();
        if (!(raas instanceof RaasDriver driver))
        {
            throw new RaasException("the tables are read through an embedded driver, not " + raas.getClass().getName());
        }
        driver.trust(tables);
        final MetaTableReader reader = new MetaTableReader(client.connection(), tables,
            raas.allocateBuffer(MetaTableReader.BUFFER_BYTES));
        reader.readHeader();
        return describe(reader.membership());
    }

    /**
     * @return the membership as the command prints it: a line of totals (with the phase while a change runs), then
     * a line per member (with its placement while a change runs).
     */
    static String describe(final MembershipRecord membership)
    {
        final boolean changing = membership.phase() != Membership.STEADY;
        final StringBuilder text = new StringBuilder()
            .append("membership epoch ").append(membership.epoch())
            .append(", replicas ").append(membership.replicas())
            .append(", ").append(membership.members().size())
            .append(membership.members().size() == 1 ? " member" : " members");
        if (changing)
        {
            text.append(", change in phase ").append(Membership.phaseName(membership.phase()));
        }
        if (membership.members().isEmpty())
        {
            return text.toString();
        }
        text.append(System.lineSeparator()).append(String.format("%-20s %-8s %-20s %s", "node", "state", "incarnation",
            changing ? "placement" : "").stripTrailing());
        for (final MemberRecord member : membership.members())
        {
            text.append(System.lineSeparator()).append(String.format("%-20d %-8s %-20d %s", member.nodeId(),
                Membership.stateName(member.state()), member.incarnation(),
                changing ? Membership.placementName(member.placement()) : "").stripTrailing());
        }
        return text.toString();
    }
}
