package io.dkv.compute.script;

import io.dkv.client.KvClient;
import io.dkv.compute.resp.RespReplies;
import io.netty.buffer.ByteBuf;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.zip.CRC32;

/**
 * FUNCTION DUMP and RESTORE [FLUSH|APPEND|REPLACE], with redis 7.0's policies and errors. The payload is dkv's own, the
 * libraries' record followed, as redis's is, by a 2-byte version and an 8-byte checksum: it restores on any dkv
 * compute node, and a redis payload is refused as a bad one (redis's is its RDB encoding).
 */
final class FunctionDump
{
    private static final short VERSION = 1;
    private static final int TRAILER = Short.BYTES + Long.BYTES;

    private final KvClient client;
    private final FunctionLibraries libraries;

    FunctionDump(final KvClient client, final FunctionLibraries libraries)
    {
        this.client = client;
        this.libraries = libraries;
    }

    void dump(final ByteBuf out)
    {
        final byte[] record = client.transact(tx -> libraries.read(tx).record());
        final ByteBuffer payload = ByteBuffer.allocate(record.length + TRAILER).order(ByteOrder.LITTLE_ENDIAN);
        payload.put(record).putShort(VERSION);
        payload.putLong(checksum(payload.array(), record.length + Short.BYTES));
        RespReplies.bulk(out, payload.array());
    }

    void restore(final byte[][] args, final ByteBuf out)
    {
        if (args.length > 4)
        {
            RespReplies.error(out, "ERR unknown subcommand or wrong number of arguments for '" +
                ScriptStore.text(args[1]) + "'. Try FUNCTION HELP.");
            return;
        }
        final String policy = args.length == 4 ? ScriptStore.text(args[3]).toLowerCase() : "append";
        if (!policy.equals("append") && !policy.equals("replace") && !policy.equals("flush"))
        {
            RespReplies.error(out, "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
            return;
        }
        final byte[] payload = args[2];
        final ByteBuffer trailer = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
        if (payload.length < TRAILER || trailer.getShort(payload.length - TRAILER) != VERSION ||
            trailer.getLong(payload.length - Long.BYTES) != checksum(payload, payload.length - Long.BYTES))
        {
            RespReplies.error(out, "ERR DUMP payload version or checksum are wrong");
            return;
        }
        final FunctionLibraries.Registry restored;
        try
        {
            restored = libraries.parse(Arrays.copyOf(payload, payload.length - TRAILER));
        }
        catch (final RuntimeException ex)
        {
            RespReplies.error(out, "ERR failed loading the given functions payload");
            return;
        }
        final String error = client.transact(tx ->
        {
            final FunctionLibraries.Registry current = policy.equals("flush") ? FunctionLibraries.Registry.EMPTY :
                libraries.read(tx);
            for (final String name : restored.libraries().keySet())
            {
                if (current.libraries().containsKey(name) && !policy.equals("replace"))
                {
                    return "ERR Library " + name + " already exists";
                }
            }
            for (final String function : restored.byFunction().keySet())
            {
                final FunctionLibraries.Library owner = current.byFunction().get(function);
                if (owner != null && !restored.libraries().containsKey(owner.name()))
                {
                    return "ERR Function " + function + " already exists";
                }
            }
            FunctionLibraries.write(tx, current.with(restored.libraries().values()));
            return null;
        });
        if (error == null)
        {
            RespReplies.ok(out);
        }
        else
        {
            RespReplies.error(out, error);
        }
    }

    private static long checksum(final byte[] bytes, final int length)
    {
        final CRC32 crc = new CRC32();
        crc.update(bytes, 0, length);
        return crc.getValue();
    }
}
