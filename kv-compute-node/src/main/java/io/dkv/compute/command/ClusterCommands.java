package io.dkv.compute.command;

import io.dkv.compute.resp.RespNumbers;
import io.dkv.compute.resp.RespReplies;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import static io.dkv.compute.command.CommandTable.spec;

/**
 * CLUSTER SLOTS, SHARDS, NODES, INFO, MYID and KEYSLOT, READONLY and READWRITE, answering as a redis 7 cluster whose
 * masters are the live compute nodes, with the shapes of redis 7's replies. Any compute node serves any key, so none
 * ever answers MOVED; the slots are still given out in ranges, one per node in the order of their ids (the same on
 * every node that lists the same members), because cluster clients refuse a map whose ranges overlap (Jedis counts
 * the slots and finds "holes" unless there are exactly 16384) and because a client then spreads its keys over the
 * nodes. A client whose map is stale (a node came or went) is still served where it goes.
 * <p>
 * COUNTKEYSINSLOT and GETKEYSINSLOT check their arguments as redis does, then are refused by name: dkv's index is by
 * key hash, not by slot, so counting a slot's keys means scanning every memory node's index. Answering 0 and an empty
 * list instead would tell a tool that moves slots (redis-cli --cluster fix or reshard) that a slot is empty when it
 * is not; an error stops it instead.
 */
final class ClusterCommands
{
    private static final int SLOTS = 16_384;
    private static final String INVALID_SLOT = "ERR Invalid slot";
    private static final String INVALID_SLOT_OR_COUNT = "ERR Invalid slot or number of keys";

    private final ClusterView view;

    ClusterCommands(final ClusterView view)
    {
        this.view = view;
    }

    List<CommandSpec> commands()
    {
        return List.of(
            new CommandSpec("cluster", -2, false, null, Map.of(
                "slots", spec("cluster|slots", 2, this::slots),
                "shards", spec("cluster|shards", 2, this::shards),
                "nodes", spec("cluster|nodes", 2, this::nodes),
                "info", spec("cluster|info", 2, this::info),
                "myid", spec("cluster|myid", 2, (session, args, out) -> RespReplies.bulk(out, view.self().id())),
                "keyslot", spec("cluster|keyslot", 3, (session, args, out) -> RespReplies.integer(out,
                    keySlot(args[2]))),
                "countkeysinslot", spec("cluster|countkeysinslot", 3, ClusterCommands::countKeysInSlot),
                "getkeysinslot", spec("cluster|getkeysinslot", 4, ClusterCommands::getKeysInSlot))),
            spec("readonly", 1, (session, args, out) -> RespReplies.ok(out)),
            spec("readwrite", 1, (session, args, out) -> RespReplies.ok(out)));
    }

    /** The members in the order of their ids: the order their slot ranges follow. */
    private List<ClusterView.Member> members()
    {
        final List<ClusterView.Member> members = new ArrayList<>(view.members());
        members.sort(Comparator.comparing(ClusterView.Member::id));
        return members;
    }

    /** @return the first slot of member {@code index} of {@code count}; {@code firstSlot(count, count)} is 16384. */
    static int firstSlot(final int index, final int count)
    {
        return (int)((long)index * SLOTS / count);
    }

    /** Per node: [first, last, [host, port, id, {}]], as redis 7 gives a master with no replicas. */
    private void slots(final Session session, final byte[][] args, final ByteBuf out)
    {
        final List<ClusterView.Member> members = members();
        RespReplies.arrayHeader(out, members.size());
        for (int i = 0; i < members.size(); i++)
        {
            final ClusterView.Member member = members.get(i);
            RespReplies.arrayHeader(out, 3);
            RespReplies.integer(out, firstSlot(i, members.size()));
            RespReplies.integer(out, firstSlot(i + 1, members.size()) - 1);
            RespReplies.arrayHeader(out, 4);
            RespReplies.bulk(out, member.host());
            RespReplies.integer(out, member.port());
            RespReplies.bulk(out, member.id());
            RespReplies.mapHeader(out, 0, session.protocol());
        }
    }

    /** Per node a shard: {slots: [first, last], nodes: [{id, port, ip, endpoint, role, replication-offset, health}]}.
     */
    private void shards(final Session session, final byte[][] args, final ByteBuf out)
    {
        final List<ClusterView.Member> members = members();
        final int protocol = session.protocol();
        RespReplies.arrayHeader(out, members.size());
        for (int i = 0; i < members.size(); i++)
        {
            final ClusterView.Member member = members.get(i);
            RespReplies.mapHeader(out, 2, protocol);
            RespReplies.bulk(out, "slots");
            RespReplies.arrayHeader(out, 2);
            RespReplies.integer(out, firstSlot(i, members.size()));
            RespReplies.integer(out, firstSlot(i + 1, members.size()) - 1);
            RespReplies.bulk(out, "nodes");
            RespReplies.arrayHeader(out, 1);
            RespReplies.mapHeader(out, 7, protocol);
            RespReplies.bulk(out, "id");
            RespReplies.bulk(out, member.id());
            RespReplies.bulk(out, "port");
            RespReplies.integer(out, member.port());
            RespReplies.bulk(out, "ip");
            RespReplies.bulk(out, member.host());
            RespReplies.bulk(out, "endpoint");
            RespReplies.bulk(out, member.host());
            RespReplies.bulk(out, "role");
            RespReplies.bulk(out, "master");
            RespReplies.bulk(out, "replication-offset");
            RespReplies.integer(out, 0);
            RespReplies.bulk(out, "health");
            RespReplies.bulk(out, "online");
        }
    }

    /** redis's node lines; no cluster bus listens, so its port is given as 0. */
    private void nodes(final Session session, final byte[][] args, final ByteBuf out)
    {
        final ClusterView.Member self = view.self();
        final List<ClusterView.Member> members = members();
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < members.size(); i++)
        {
            final ClusterView.Member member = members.get(i);
            text.append(member.id()).append(' ').append(member.host()).append(':').append(member.port())
                .append("@0 ").append(member.id().equals(self.id()) ? "myself,master" : "master")
                .append(" - 0 0 0 connected ").append(firstSlot(i, members.size())).append('-')
                .append(firstSlot(i + 1, members.size()) - 1).append('\n');
        }
        RespReplies.text(out, text.toString(), session.protocol());
    }

    private void info(final Session session, final byte[][] args, final ByteBuf out)
    {
        final int known = view.members().size();
        RespReplies.text(out, "cluster_state:ok\r\n" +
            "cluster_slots_assigned:16384\r\n" +
            "cluster_slots_ok:16384\r\n" +
            "cluster_slots_pfail:0\r\n" +
            "cluster_slots_fail:0\r\n" +
            "cluster_known_nodes:" + known + "\r\n" +
            "cluster_size:" + known + "\r\n" +
            "cluster_current_epoch:0\r\n" +
            "cluster_my_epoch:0\r\n" +
            "cluster_stats_messages_sent:0\r\n" +
            "cluster_stats_messages_received:0\r\n" +
            "total_cluster_links_buffer_limit_exceeded:0\r\n", session.protocol());
    }

    /**
     * redis's keyHashSlot, which KEYSLOT must match for clients that group keys by slot (to send a multi-key command to
     * one node) to agree with it: CRC16 (XMODEM) of the key, mod 16384, or of its hash tag, the bytes between the
     * first {@code '{'} and the first {@code '}'} after it, when there are any (so {@code {}x} hashes whole).
     */
    static int keySlot(final byte[] key)
    {
        int from = 0;
        int to = key.length;
        final int open = indexOf(key, (byte)'{', 0);
        if (open >= 0)
        {
            final int close = indexOf(key, (byte)'}', open + 1);
            if (close > open + 1)
            {
                from = open + 1;
                to = close;
            }
        }
        return crc16(key, from, to) & (SLOTS - 1);
    }

    /**
     * CRC-16/XMODEM (polynomial 0x1021, initial value 0, no reflection), bit by bit: redis's crc16.c uses a 256-entry
     * table for speed, which a command run once per KEYSLOT does not need.
     */
    static int crc16(final byte[] bytes, final int from, final int to)
    {
        int crc = 0;
        for (int i = from; i < to; i++)
        {
            crc ^= (bytes[i] & 0xFF) << 8;
            for (int bit = 0; bit < 8; bit++)
            {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
        }
        return crc & 0xFFFF;
    }

    private static int indexOf(final byte[] bytes, final byte value, final int from)
    {
        for (int i = from; i < bytes.length; i++)
        {
            if (bytes[i] == value)
            {
                return i;
            }
        }
        return -1;
    }

    /** redis's checks, in its order, then the refusal: no index of keys by slot (see the class's javadoc). */
    private static void countKeysInSlot(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (!RespNumbers.isLong(args[2]))
        {
            RespReplies.error(out, Errors.NOT_INTEGER);
        }
        else if (!isSlot(RespNumbers.parseLong(args[2])))
        {
            RespReplies.error(out, INVALID_SLOT);
        }
        else
        {
            RespReplies.error(out, noSlotIndex("COUNTKEYSINSLOT"));
        }
    }

    private static void getKeysInSlot(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (!RespNumbers.isLong(args[2]) || !RespNumbers.isLong(args[3]))
        {
            RespReplies.error(out, Errors.NOT_INTEGER);
        }
        else if (!isSlot(RespNumbers.parseLong(args[2])) || RespNumbers.parseLong(args[3]) < 0)
        {
            RespReplies.error(out, INVALID_SLOT_OR_COUNT);
        }
        else
        {
            RespReplies.error(out, noSlotIndex("GETKEYSINSLOT"));
        }
    }

    private static boolean isSlot(final long slot)
    {
        return slot >= 0 && slot < SLOTS;
    }

    private static String noSlotIndex(final String subcommand)
    {
        return "ERR command 'CLUSTER " + subcommand + "' is not supported by this dkv compute node: it keeps no " +
            "index of keys by slot";
    }
}
