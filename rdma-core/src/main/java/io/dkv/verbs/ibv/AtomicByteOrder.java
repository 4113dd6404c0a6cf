package io.dkv.verbs.ibv;

import io.dkv.verbs.Opcode;
import io.dkv.verbs.VerbsException;

import java.nio.ByteOrder;

/**
 * The verbs model defines an atomic's remote word, and the original value returned, in big-endian order, as the
 * InfiniBand specification does and as dkv's index stores its words. RNICs under Linux execute atomics in the
 * responder's host order instead (mlx5 advertises atomics only in that mode; rxe and the others work on host memory
 * as it is). On a little-endian host the binding therefore reverses a compare-and-swap's operands: the RNIC then
 * compares and writes exactly the bytes the model means, and the original value it returns, in host order, is the
 * word's bytes as they were. A fetch-and-add cannot be turned around so (its carries run the other way): it is
 * refused, naming why.
 */
final class AtomicByteOrder
{
    /** Whether operands are reversed: hosts whose order is not the model's. */
    static final boolean REVERSED = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private AtomicByteOrder()
    {
    }

    /** @return an operand as the RNIC must see it for the model's big-endian word. */
    static long operand(final long value)
    {
        return REVERSED ? Long.reverseBytes(value) : value;
    }

    /**
     * @throws VerbsException for a fetch-and-add on a host whose order is not the model's.
     */
    static void check(final Opcode opcode, final long wrId)
    {
        if (REVERSED && opcode == Opcode.ATOMIC_FETCH_AND_ADD)
        {
            throw new VerbsException("request wrId=" + wrId + ": FETCH_AND_ADD on a big-endian word cannot run on " +
                "an RNIC of a little-endian host, which adds in host order; use ATOMIC_CMP_AND_SWP");
        }
    }
}
