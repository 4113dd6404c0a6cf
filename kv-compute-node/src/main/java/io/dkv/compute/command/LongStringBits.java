package io.dkv.compute.command;

import io.dkv.client.KvClient;
import io.dkv.client.WrongKindException;
import io.dkv.client.pieces.PieceWriter;
import io.dkv.client.pieces.PiecedString;
import io.dkv.client.pieces.PiecedStrings;
import io.dkv.client.txn.LogicalValue;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.ValueKind;

/**
 * BITOP over strings longer than a value takes, and BITFIELD's window of such a string (client/README.md, "Strings in
 * pieces"): sources read a piece at a time, a long result written in pieces.
 */
final class LongStringBits
{
    private final KvClient client;
    private final PiecedStrings strings;
    private final LongStrings longStrings;

    LongStringBits(final KvClient client, final LongStrings longStrings)
    {
        this.client = client;
        this.strings = new PiecedStrings(client);
        this.longStrings = longStrings;
    }

    /**
     * BITOP outside MULTI, whatever its sources' lengths: one transaction reads the sources (strings in pieces a piece
     * at a time) and writes the result, in pieces when it is longer than a value takes, at the destination (with no
     * expiry, as SET), or removes the destination when every source is empty or missing.
     *
     * @param op 0 AND, 1 OR, 2 XOR, 3 NOT.
     * @return the result's length.
     */
    long bitOp(final int op, final byte[] destination, final java.util.List<byte[]> sources)
    {
        final PiecedString[] written = new PiecedString[1];
        try
        {
            return client.transact(tx ->
            {
                abandonWritten(written);
                final StringBytes[] inputs = new StringBytes[sources.size()];
                long longest = 0;
                for (int i = 0; i < inputs.length; i++)
                {
                    final byte[] key = sources.get(i);
                    final LogicalValue read = tx.read(key);
                    if (read != null && !ValueKind.isString(read.kind()))
                    {
                        throw new WrongKindException(key, read.kind(), ValueKind.STRING);
                    }
                    final PiecedString string = PiecedStrings.header(key, read);
                    inputs[i] = read == null ? null :
                        string != null ? longStrings.bytes(key, string) : StringBytes.of(read.value());
                    longest = Math.max(longest, inputs[i] == null ? 0 : inputs[i].length());
                }
                final LogicalValue target = tx.read(destination);
                PiecedStrings.dropAny(tx, destination, target, client.collectionSegmentBytes());
                if (longest == 0)
                {
                    return 0L;
                }
                if (longest <= KvBlockLayout.MAX_VALUE_LENGTH)
                {
                    final byte[] result = new byte[(int)longest];
                    fill(op, inputs, 0, result, result.length);
                    tx.put(destination, result, KvClient.NO_EXPIRY);
                    return longest;
                }
                final PieceWriter writer = strings.writer(KvClient.NO_EXPIRY);
                try
                {
                    final byte[] chunk = new byte[64 * 1024];
                    for (long at = 0; at < longest; at += chunk.length)
                    {
                        final int n = (int)Math.min(chunk.length, longest - at);
                        fill(op, inputs, at, chunk, n);
                        writer.write(chunk, 0, n);
                    }
                    written[0] = writer.finish();
                }
                catch (final RuntimeException ex)
                {
                    writer.abandon();
                    throw ex;
                }
                PiecedStrings.publish(tx, destination, written[0], KvClient.NO_EXPIRY);
                return longest;
            });
        }
        catch (final RuntimeException ex)
        {
            abandonWritten(written);
            throw ex;
        }
    }

    /** Bytes {@code from} to {@code from + n} of BITOP's result, a missing source or past a source's end zeros. */
    private static void fill(final int op, final StringBytes[] inputs, final long from, final byte[] into, final int n)
    {
        for (int j = 0; j < n; j++)
        {
            final long at = from + j;
            int output = byteAt(inputs[0], at);
            output = op == 3 ? ~output : output;
            for (int i = 1; i < inputs.length; i++)
            {
                final int next = byteAt(inputs[i], at);
                output = op == 0 ? output & next : op == 1 ? output | next : output ^ next;
            }
            into[j] = (byte)output;
        }
    }

    private static int byteAt(final StringBytes bytes, final long index)
    {
        return bytes == null || index >= bytes.length() ? 0 : bytes.at(index);
    }

    /**
     * The bytes {@code from} to {@code to} (inclusive) of a string as {@code current} holds it, zeros past its end: the
     * window of a BITFIELD over a long string.
     */
    static byte[] window(final StringBytes current, final long from, final long to)
    {
        final byte[] window = new byte[(int)(to - from + 1)];
        for (long at = from; at <= to && at < current.length(); at++)
        {
            window[(int)(at - from)] = (byte)current.at(at);
        }
        return window;
    }

    private void abandonWritten(final PiecedString[] written)
    {
        if (written[0] != null)
        {
            // written for a run that did not commit: nobody's
            strings.abandon(written[0], null);
            written[0] = null;
        }
    }
}
