package io.dkv.compute.command;

import io.dkv.compute.resp.RespNumbers;
import io.dkv.compute.resp.RespReplies;
import io.netty.buffer.ByteBuf;

import java.util.Arrays;

import static io.dkv.compute.command.CommandTable.is;

/**
 * The arguments LMPOP, ZMPOP, BLMPOP and BZMPOP share, parsed as redis's lmpopGenericCommand and zmpopGenericCommand
 * parse them and in their order: numkeys, the keys, the end (LEFT|RIGHT, or MIN|MAX), then [COUNT count].
 *
 * @param keys  the keys, in the order named.
 * @param first true for LEFT (MIN), the head of a list or the lowest scores.
 * @param count how many to pop at most: 1 when no COUNT was given.
 */
record MultiPopArguments(byte[][] keys, boolean first, long count)
{
    /**
     * @param numKeysAt where numkeys is: 1 for LMPOP and ZMPOP, 2 for the blocking forms (after their timeout).
     * @param sorted    true for a sorted set's MIN|MAX, false for a list's LEFT|RIGHT.
     * @return the arguments, or null having written redis's error.
     */
    static MultiPopArguments parse(final byte[][] args, final int numKeysAt, final boolean sorted, final ByteBuf out)
    {
        final long numKeys = RespNumbers.isLong(args[numKeysAt]) ? RespNumbers.parseLong(args[numKeysAt]) : 0;
        if (numKeys < 1)
        {
            RespReplies.error(out, "ERR numkeys should be greater than 0");
            return null;
        }
        // the end's index is past the request when numkeys names more keys than there are
        final long whereAt = numKeys >= args.length ? args.length : numKeysAt + 1 + numKeys;
        final boolean first = whereAt < args.length && is(args[(int)whereAt], sorted ? "min" : "left");
        if (whereAt >= args.length || !first && !is(args[(int)whereAt], sorted ? "max" : "right"))
        {
            RespReplies.error(out, Errors.SYNTAX);
            return null;
        }
        long count = -1;
        for (int i = (int)whereAt + 1; i < args.length; i++)
        {
            if (count == -1 && is(args[i], "count") && i + 1 < args.length)
            {
                i++;
                count = RespNumbers.isLong(args[i]) ? RespNumbers.parseLong(args[i]) : 0;
                if (count < 1)
                {
                    RespReplies.error(out, "ERR count should be greater than 0");
                    return null;
                }
            }
            else
            {
                RespReplies.error(out, Errors.SYNTAX);
                return null;
            }
        }
        return new MultiPopArguments(Arrays.copyOfRange(args, numKeysAt + 1, (int)whereAt), first,
            count == -1 ? 1 : count);
    }
}
