package io.dkv.compute.command;

import io.dkv.client.Versioned;
import io.dkv.compute.resp.RespNumbers;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.dkv.format.ValueKind;
import io.netty.buffer.ByteBuf;

import java.util.List;
import java.util.Map;

import static io.dkv.compute.command.CommandTable.spec;

/**
 * OBJECT ENCODING, REFCOUNT, FREQ, IDLETIME and HELP, as far as dkv can answer them. A value's encoding and reference
 * count are the ones redis gives it when SET makes it (an integer of up to 20 characters "int", shared when 0 to
 * 9999; else up to 44 bytes "embstr", else "raw"): dkv keeps bytes, not redis's objects, so after redis's APPEND,
 * SETRANGE or SETBIT, which leave redis's value "raw", dkv still answers by the bytes. FREQ gets redis's error for a
 * node whose policy is not LFU (dkv's is noeviction); IDLETIME says dkv keeps no access times, which it would have to
 * write on every read.
 */
final class ObjectCommand
{
    private static final long SHARED_INTEGERS = 10_000;
    private static final long SHARED_REFCOUNT = Integer.MAX_VALUE;
    private static final int EMBSTR_LIMIT = 44;
    private static final List<String> HELP = List.of(
        "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "ENCODING <key>",
        "    Return the kind of internal representation used in order to store the value",
        "    associated with a <key>.",
        "FREQ <key>",
        "    Return the access frequency index of the <key>. The returned integer is",
        "    proportional to the logarithm of the recent access frequency of the key.",
        "IDLETIME <key>",
        "    Return the idle time of the <key>, that is the approximated number of",
        "    seconds elapsed since the last access to the key.",
        "REFCOUNT <key>",
        "    Return the number of references of the value associated with the specified",
        "    <key>.",
        "HELP",
        "    Prints this help.");

    private final KeyStore base;

    ObjectCommand(final KeyStore base)
    {
        this.base = base;
    }

    List<CommandSpec> commands()
    {
        return List.of(new CommandSpec("object", -2, false, null, Map.of(
            "encoding", spec("object|encoding", 3, (session, args, out) -> ofValue(session, args, out, true)),
            "refcount", spec("object|refcount", 3, (session, args, out) -> ofValue(session, args, out, false)),
            "freq", spec("object|freq", 3, this::freq),
            "idletime", spec("object|idletime", 3, this::idleTime),
            "help", spec("object|help", 2, (session, args, out) ->
            {
                RespReplies.arrayHeader(out, HELP.size());
                HELP.forEach(line -> RespReplies.simple(out, line));
            }))));
    }

    private void ofValue(final Session session, final byte[][] args, final ByteBuf out, final boolean encoding)
    {
        final Versioned read = session.store(base).readAny(args[2]);
        if (read == null)
        {
            RespReplies.nullReply(out, session.protocol());
            return;
        }
        if (read.kind() == ValueKind.PIECES)
        {
            // a string longer than a value takes: raw, as redis's strings past 44 bytes
            if (encoding)
            {
                RespReplies.bulk(out, "raw");
            }
            else
            {
                RespReplies.integer(out, 1);
            }
            return;
        }
        if (read.kind() != ValueKind.STRING)
        {
            // a hash or a set is a hash table of segments at every size (client/README.md, "Hashes and sets"); a
            // list, redis 7.0's at every size
            if (encoding)
            {
                RespReplies.bulk(out, read.kind() == ValueKind.LIST ? "quicklist" : "hashtable");
            }
            else
            {
                RespReplies.integer(out, 1);
            }
            return;
        }
        final byte[] value = read.value();
        final boolean integer = value.length <= 20 && RespNumbers.isLong(value);
        if (encoding)
        {
            RespReplies.bulk(out, integer ? "int" : value.length <= EMBSTR_LIMIT ? "embstr" : "raw");
            return;
        }
        final long number = integer ? RespNumbers.parseLong(value) : -1;
        RespReplies.integer(out, integer && number >= 0 && number < SHARED_INTEGERS ? SHARED_REFCOUNT : 1);
    }

    private void freq(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (session.store(base).readAny(args[2]) == null)
        {
            RespReplies.nullReply(out, session.protocol());
            return;
        }
        RespReplies.error(out, "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please " +
            "note that when switching between policies at runtime LRU and LFU data will take some time to adjust.");
    }

    private void idleTime(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (session.store(base).readAny(args[2]) == null)
        {
            RespReplies.nullReply(out, session.protocol());
            return;
        }
        RespReplies.error(out, "ERR OBJECT IDLETIME is not supported by this dkv compute node: dkv keeps no access " +
            "times (it would write one on every read)");
    }
}
