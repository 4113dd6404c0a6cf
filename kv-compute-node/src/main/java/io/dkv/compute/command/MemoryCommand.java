package io.dkv.compute.command;

import io.dkv.client.Versioned;
import io.dkv.client.collection.CollectionLayout;
import io.dkv.client.ordered.TreeCollection;
import io.dkv.client.pieces.PiecedString;
import io.dkv.client.pieces.PiecesLayout;
import io.dkv.compute.resp.RespNumbers;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.ReservedKeys;
import io.dkv.format.ValueKind;
import io.netty.buffer.ByteBuf;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

import static io.dkv.compute.command.CommandTable.spec;

/**
 * MEMORY USAGE and HELP: the bytes a key takes on its memory node, as its blocks hold it (a string's block; a hash's
 * or set's header block and its segments' blocks, from the header's counts, with no segment read; a sorted set's or a
 * list's header and its trees' nodes, estimated from the paths to SAMPLES ranks of each tree as redis samples, or
 * read whole with SAMPLES 0). Replicas are not counted, as redis counts one server. The other subcommands describe
 * redis's allocator, which dkv has not.
 */
final class MemoryCommand
{
    private static final List<String> HELP = List.of(
        "DOCTOR",
        "    Return memory problems reports.",
        "MALLOC-STATS",
        "    Return internal statistics report from the memory allocator.",
        "PURGE",
        "    Attempt to purge dirty pages for reclamation by the allocator.",
        "STATS",
        "    Return information about the memory usage of the server.",
        "USAGE <key> [SAMPLES <count>]",
        "    Return memory in bytes used by <key> and its value. Nested values are",
        "    sampled up to <count> times (default: 5, 0 means sample all).");
    /** An index slot: what each key's block costs in the index besides the block. */
    private static final int SLOT_BYTES = 8;
    /** A segment's or a tree node's block besides its bytes: its slot, header, key, 32 bytes of padding on average. */
    private static final int NODE_OVERHEAD =
        SLOT_BYTES + KvBlockLayout.HEADER_LENGTH + ReservedKeys.SEGMENT_KEY_LENGTH + 32;
    /** Redis's OBJ_COMPUTE_SIZE_DEF_SAMPLES. */
    private static final int DEFAULT_SAMPLES = 5;

    private final KeyStore base;

    MemoryCommand(final KeyStore base)
    {
        this.base = base;
    }

    List<CommandSpec> commands()
    {
        final CommandHandler notHere = (session, args, out) -> RespReplies.error(out, "ERR MEMORY " +
            CommandTable.lowerCase(args[1]).toUpperCase() + " is not supported by this dkv compute node: its values " +
            "live on memory nodes, in blocks, not in this process's allocator");
        return List.of(new CommandSpec("memory", -2, false, null, Map.of(
            "usage", spec("memory|usage", -3, this::usage),
            "doctor", spec("memory|doctor", 2, notHere),
            "malloc-stats", spec("memory|malloc-stats", 2, notHere),
            "purge", spec("memory|purge", 2, notHere),
            "stats", spec("memory|stats", 2, notHere),
            "help", spec("memory|help", 2, (session, args, out) ->
            {
                RespReplies.arrayHeader(out, HELP.size());
                HELP.forEach(line -> RespReplies.simple(out, line));
            }))));
    }

    private void usage(final Session session, final byte[][] args, final ByteBuf out)
    {
        long samples = DEFAULT_SAMPLES;
        for (int j = 3; j < args.length; j++)
        {
            if (CommandTable.is(args[j], "samples") && j + 1 < args.length)
            {
                if (!RespNumbers.isLong(args[j + 1]))
                {
                    RespReplies.error(out, Errors.NOT_INTEGER);
                    return;
                }
                samples = RespNumbers.parseLong(args[j + 1]);
                if (samples < 0)
                {
                    RespReplies.error(out, Errors.SYNTAX);
                    return;
                }
                j++;
            }
            else
            {
                RespReplies.error(out, Errors.SYNTAX);
                return;
            }
        }
        final Versioned read = session.store(base).readAny(args[2]);
        if (read == null)
        {
            RespReplies.nullReply(out, session.protocol());
            return;
        }
        long usage = SLOT_BYTES + KvBlockLayout.blockLength(args[2].length, read.value().length);
        if (read.kind() == ValueKind.PIECES)
        {
            final PiecedString string = PiecesLayout.decode(args[2], read.value());
            // each piece written a block of its own; pieces of zeros take nothing
            for (int i = 0; i < string.pieces(); i++)
            {
                usage += string.generation(i) == 0 ? 0 : SLOT_BYTES +
                    KvBlockLayout.blockLength(ReservedKeys.SEGMENT_KEY_LENGTH, string.pieceLength(i));
            }
        }
        else if ((read.kind() == ValueKind.HASH || read.kind() == ValueKind.SET) &&
            read.value().length == CollectionLayout.LENGTH)
        {
            final ByteBuffer header = ByteBuffer.wrap(read.value());
            final long bytes = header.getLong(CollectionLayout.BYTES_OFFSET);
            final long segments = (1L << header.getInt(CollectionLayout.LEVEL_OFFSET)) +
                header.getInt(CollectionLayout.SPLIT_OFFSET);
            // each segment a block of its own: its header, its key and padding to 64 bytes on average
            usage += bytes + segments * NODE_OVERHEAD;
        }
        else if (read.kind() == ValueKind.ZSET || read.kind() == ValueKind.LIST)
        {
            final int kind = read.kind();
            final int sampled = (int)Math.min(Integer.MAX_VALUE, samples);
            final long[] nodes = session.store(base).atomically(store -> TreeCollection.open(store.transaction(),
                args[2], kind, store.segmentBytes()).estimateNodes(sampled));
            usage += nodes[1] + nodes[0] * NODE_OVERHEAD;
        }
        RespReplies.integer(out, usage);
    }
}
