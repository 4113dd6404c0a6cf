package io.dkv.compute.command;

import io.dkv.compute.resp.RespDecoder;
import io.dkv.compute.resp.RespNumbers;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;

import static io.dkv.compute.command.CommandTable.spec;

/**
 * LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN], as redis 7.0 answers it: the longest common
 * subsequence by its dynamic programme, the same one of several of equal length (redis walks the table back the same
 * way), the two keys read as of one instant. Its table takes 4 bytes per pair of positions: one over redis's bound
 * (512 MB) or a quarter of this node's heap is refused with redis's texts.
 */
final class LcsCommand
{
    private final KeyStore base;

    LcsCommand(final KeyStore base)
    {
        this.base = base;
    }

    List<CommandSpec> commands()
    {
        return List.of(spec("lcs", -3, this::lcs));
    }

    private void lcs(final Session session, final byte[][] args, final ByteBuf out)
    {
        final List<byte[]> values = session.store(base).multiGet(List.of(args[1], args[2]));
        LongStrings.refusePieces("LCS", values);
        final byte[] a = values.get(0) == null ? new byte[0] : values.get(0);
        final byte[] b = values.get(1) == null ? new byte[0] : values.get(1);
        boolean len = false;
        boolean idx = false;
        boolean withMatchLen = false;
        long minMatchLen = 0;
        for (int j = 3; j < args.length; j++)
        {
            if (CommandTable.is(args[j], "idx"))
            {
                idx = true;
            }
            else if (CommandTable.is(args[j], "len"))
            {
                len = true;
            }
            else if (CommandTable.is(args[j], "withmatchlen"))
            {
                withMatchLen = true;
            }
            else if (CommandTable.is(args[j], "minmatchlen") && j + 1 < args.length)
            {
                if (!RespNumbers.isLong(args[j + 1]))
                {
                    RespReplies.error(out, Errors.NOT_INTEGER);
                    return;
                }
                minMatchLen = Math.max(0, RespNumbers.parseLong(args[++j]));
            }
            else
            {
                RespReplies.error(out, Errors.SYNTAX);
                return;
            }
        }
        if (len && idx)
        {
            RespReplies.error(out, "ERR If you want both the length and indexes, please just use IDX.");
            return;
        }
        final long cells = (a.length + 1L) * (b.length + 1L);
        if (cells * Integer.BYTES > RespDecoder.REDIS_MAX_BULK)
        {
            RespReplies.error(out, "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
            return;
        }
        if (cells * Integer.BYTES > Runtime.getRuntime().maxMemory() / 4)
        {
            RespReplies.error(out, "ERR Insufficient memory, failed allocating transient memory for LCS");
            return;
        }
        final int columns = b.length + 1;
        final int[] table = new int[(int)cells];
        for (int i = 1; i <= a.length; i++)
        {
            for (int j = 1; j <= b.length; j++)
            {
                table[i * columns + j] = a[i - 1] == b[j - 1] ? table[(i - 1) * columns + j - 1] + 1 :
                    Math.max(table[(i - 1) * columns + j], table[i * columns + j - 1]);
            }
        }
        final int length = table[a.length * columns + b.length];
        if (len)
        {
            RespReplies.integer(out, length);
            return;
        }
        final byte[] result = new byte[length];
        final List<long[]> ranges = new ArrayList<>();
        walkBack(a, b, table, columns, result, ranges, minMatchLen);
        if (!idx)
        {
            RespReplies.bulk(out, result);
            return;
        }
        RespReplies.mapHeader(out, 2, session.protocol());
        RespReplies.bulk(out, "matches");
        RespReplies.arrayHeader(out, ranges.size());
        for (final long[] range : ranges)
        {
            RespReplies.arrayHeader(out, withMatchLen ? 3 : 2);
            RespReplies.arrayHeader(out, 2);
            RespReplies.integer(out, range[0]);
            RespReplies.integer(out, range[1]);
            RespReplies.arrayHeader(out, 2);
            RespReplies.integer(out, range[2]);
            RespReplies.integer(out, range[3]);
            if (withMatchLen)
            {
                RespReplies.integer(out, range[1] - range[0] + 1);
            }
        }
        RespReplies.bulk(out, "len");
        RespReplies.integer(out, length);
    }

    /**
     * The subsequence, from its end, and its runs matched in both (start and end in a, then in b), as redis walks the
     * table: on a match back diagonally, else towards the larger neighbour, the column before on a tie.
     */
    private static void walkBack(final byte[] a, final byte[] b, final int[] table, final int columns,
        final byte[] result, final List<long[]> ranges, final long minMatchLen)
    {
        int i = a.length;
        int j = b.length;
        int idx = result.length;
        final int unset = a.length;
        int aStart = unset;
        int aEnd = 0;
        int bStart = 0;
        int bEnd = 0;
        while (i > 0 && j > 0)
        {
            boolean emit = false;
            if (a[i - 1] == b[j - 1])
            {
                result[idx - 1] = a[i - 1];
                if (aStart == unset)
                {
                    aStart = i - 1;
                    aEnd = i - 1;
                    bStart = j - 1;
                    bEnd = j - 1;
                }
                else if (aStart == i && bStart == j)
                {
                    aStart--;
                    bStart--;
                }
                else
                {
                    emit = true;
                }
                if (aStart == 0 || bStart == 0)
                {
                    emit = true;
                }
                idx--;
                i--;
                j--;
            }
            else
            {
                if (table[(i - 1) * columns + j] > table[i * columns + j - 1])
                {
                    i--;
                }
                else
                {
                    j--;
                }
                if (aStart != unset)
                {
                    emit = true;
                }
            }
            if (emit)
            {
                final long matchLen = aEnd - aStart + 1L;
                if (minMatchLen == 0 || matchLen >= minMatchLen)
                {
                    ranges.add(new long[]{aStart, aEnd, bStart, bEnd});
                }
                aStart = unset;
            }
        }
    }
}
