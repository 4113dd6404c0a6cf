package io.dkv.meta;

import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.meta.MetaDirectory;
import io.dkv.raas.meta.MetaFrameAuthenticator;
import io.dkv.raas.meta.MetaMessageReader;
import io.dkv.raas.meta.MetaMessageWriter;
import io.dkv.verbs.PortAddress;
import org.agrona.concurrent.SystemEpochClock;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static io.dkv.raas.meta.MetaRpcDescriptor.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The MetaServer takes RPC frames as untrusted input: ten thousand malformed ones, crafted and
 * random, each get an error reply naming what is wrong, nothing of them is applied, and the server
 * serves normal requests afterwards. Frames of a header or more are sealed with the cluster secret as
 * they are sent (with a fresh request id), so that what is checked is what comes after the mac.
 */
class MalformedRpcTest
{
    private static final int FRAMES = 10_000;
    private static final byte[] TOKEN = new byte[TOKEN_LENGTH];

    static
    {
        Arrays.fill(TOKEN, (byte)0x5a);
    }

    @TempDir
    Path dir;

    /**
     * A frame and the status its reply must carry (-1: any status, the body was random).
     *
     * @param raw sent as it is, not sealed.
     */
    private record Frame(String what, byte[] bytes, int expected, boolean raw)
    {
        Frame(final String what, final byte[] bytes, final int expected)
        {
            this(what, bytes, expected, bytes.length < HEADER_LENGTH || bytes.length + MAC_LENGTH > MAX_FRAME_LENGTH);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void tenThousandMalformedRequestsAreEachRefusedAndTheServerKeepsServing(final String provider)
    {
        try (MetaServer server = MetaTestSupport.startServer(provider, dir);
            Raas attacker = RaasDriver.start(MetaTestSupport.nodeContext(provider, 66),
                new MetaDirectory(MetaTestSupport.directoryContext(server.endpoint()).nodeToken(TOKEN))))
        {
            final Connection connection = attacker.connect(server.endpoint().nodeId(), SERVICE, Flags.ADAPTIVE, null);
            final List<Frame> frames = crafted(attacker.self());
            final Random random = new Random(provider.hashCode());
            while (frames.size() < FRAMES)
            {
                frames.add(random.nextBoolean() ? randomBytes(random) : randomBody(random));
            }
            final long handledBefore = server.requestsHandled();
            final MemorySegment reply = attacker.allocateBuffer(MAX_FRAME_LENGTH);
            final MemorySegment request = attacker.allocateBuffer(MAX_FRAME_LENGTH);
            final MetaMessageReader reader = new MetaMessageReader();
            final MetaFrameAuthenticator authenticator =
                new MetaFrameAuthenticator(MetaTestSupport.SECRET, SystemEpochClock.INSTANCE, 30_000);
            long sealedRequestId = 1;
            int refused = 0;
            for (final Frame frame : frames)
            {
                final long requestId;
                if (frame.raw)
                {
                    connection.send(MemorySegment.ofArray(frame.bytes), 0, frame.bytes.length, Flags.ADAPTIVE);
                    requestId = frame.bytes.length >= HEADER_LENGTH ?
                        ByteBuffer.wrap(frame.bytes).order(ByteOrder.LITTLE_ENDIAN).getLong(REQUEST_ID_OFFSET) : 0;
                }
                else
                {
                    requestId = sealedRequestId++;
                    MemorySegment.copy(frame.bytes, 0, request, ValueLayout.JAVA_BYTE, 0, frame.bytes.length);
                    request.set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), REQUEST_ID_OFFSET,
                        requestId);
                    connection.send(request, 0, authenticator.seal(request, frame.bytes.length), Flags.ADAPTIVE);
                }
                final int length = connection.recv(reply, 0, MAX_FRAME_LENGTH, Duration.ofSeconds(5));
                assertEquals(null, authenticator.verify(reply, length), "the reply is sealed: " + frame.what);
                reader.wrap(reply, 0, length - MAC_LENGTH).body();
                assertEquals(TYPE_REPLY, reader.type(), frame.what);
                assertEquals(requestId, reader.requestId(), frame.what);
                final short status = reader.status();
                final String why = reader.remaining() > 0 ? reader.getRemainingText() : "";
                if (frame.expected >= 0)
                {
                    assertEquals(statusName(frame.expected), statusName(status), frame.what + ": " + why);
                }
                if (status != STATUS_OK)
                {
                    refused++;
                    assertTrue(!why.isEmpty(), "an error reply says why: " + frame.what);
                }
            }
            final long handled = server.requestsHandled() - handledBefore;
            assertTrue(handled >= FRAMES,
                "every frame was read and answered (with the attacker's own lease renewals): " + handled);
            assertTrue(refused > FRAMES * 3 / 4, "refused " + refused);
            assertEquals(2, server.state().nodeCount(),
                "no frame registered a node (the server and the attacker are all)");
            assertEquals(1, server.state().regionCount(), "no frame published a region (the tables are all)");

            try (Raas member = MetaTestSupport.node(provider, 67, server.endpoint()))
            {
                final RemoteRegion region = member.malloc(member.self().id(), 4096, "after.garbage");
                assertEquals(region, attacker.lookup("after.garbage"));
                assertNotNull(MetaTestSupport.directoryOf(attacker).node(member.self().id()));
            }
        }
    }

    private static List<Frame> crafted(final NodeRecord self)
    {
        final List<Frame> frames = new ArrayList<>();
        frames.add(new Frame("an empty frame", new byte[0], STATUS_MALFORMED));
        for (int length = 1; length < HEADER_LENGTH; length++)
        {
            frames.add(new Frame(length + " bytes, shorter than a header", new byte[length], STATUS_MALFORMED));
        }
        frames.add(new Frame("protocol version 1", patch(request(TYPE_BOOTSTRAP, w -> { }), VERSION_OFFSET, (byte)1),
            STATUS_UNSUPPORTED_VERSION));
        frames.add(new Frame("a header without a mac", request(TYPE_BOOTSTRAP, w -> { }), STATUS_MALFORMED, true));
        frames.add(new Frame("a bootstrap with a zero mac",
            Arrays.copyOf(request(TYPE_BOOTSTRAP, w -> { }), HEADER_LENGTH + MAC_LENGTH),
            STATUS_UNAUTHENTICATED, true));
        for (final int delta : new int[]{1, -1, 1000})
        {
            frames.add(new Frame("body length off by " + delta,
                withBodyLength(request(TYPE_HEARTBEAT, w -> w.putLong(1).putLong(1)), 16 + delta),
                STATUS_MALFORMED));
        }
        frames.add(new Frame("negative body length", withBodyLength(request(TYPE_BOOTSTRAP, w -> { }), -1),
            STATUS_MALFORMED));
        frames.add(new Frame("huge body length", withBodyLength(request(TYPE_BOOTSTRAP, w -> { }), Integer.MAX_VALUE),
            STATUS_MALFORMED));
        for (int type = -128; type < 128; type++)
        {
            if (!(type >= TYPE_BOOTSTRAP && type <= TYPE_ABORT_MEMBERSHIP) &&
                !(type >= TYPE_REPLICATE_NODE && type <= TYPE_REPLICATE_MEMBERS))
            {
                final byte unknown = (byte)type;
                frames.add(new Frame("type " + type, request(unknown, w -> { }), STATUS_UNKNOWN_TYPE));
            }
        }
        frames.add(new Frame("a bootstrap with a body", request(TYPE_BOOTSTRAP, w -> w.putInt(7)), STATUS_MALFORMED));
        frames.add(new Frame("a mark-live without its incarnation", request(TYPE_MARK_LIVE, w -> w.putLong(500)),
            STATUS_MALFORMED));
        frames.add(new Frame("a mark-live with bytes after its fields",
            request(TYPE_MARK_LIVE, w -> w.putLong(500).putLong(1).putInt(0)), STATUS_MALFORMED));
        frames.add(new Frame("a begin-add without its node", request(TYPE_BEGIN_ADD, w -> w.putInt(5)),
            STATUS_MALFORMED));
        frames.add(new Frame("a begin-drain with bytes after its node",
            request(TYPE_BEGIN_DRAIN, w -> w.putLong(500).putInt(0)), STATUS_MALFORMED));
        frames.add(new Frame("an advance without its phase", request(TYPE_ADVANCE_MEMBERSHIP, w -> { }),
            STATUS_MALFORMED));
        frames.add(new Frame("an abort with a body", request(TYPE_ABORT_MEMBERSHIP, w -> w.putInt(1)),
            STATUS_MALFORMED));
        frames.add(new Frame("an advance from a phase no change is in",
            request(TYPE_ADVANCE_MEMBERSHIP, w -> w.putInt(99)), STATUS_CONFLICT));
        frames.add(new Frame("adding a node that is not registered", request(TYPE_BEGIN_ADD, w -> w.putLong(98765)),
            STATUS_NOT_REGISTERED));

        final NodeRecord node =
            new NodeRecord(500, NodeRecord.ROLE_MEMORY,
                PortAddress.tcp(new java.net.InetSocketAddress("127.0.0.1", 7000)),
            3, 99, 1, 0);
        final byte[] register = request(TYPE_REGISTER_NODE, w -> w.putNode(node).putToken(null));
        for (int cut = HEADER_LENGTH; cut < register.length; cut++)
        {
            frames.add(new Frame("a registration cut at " + cut,
                withBodyLength(Arrays.copyOf(register, cut), cut - HEADER_LENGTH),
                STATUS_MALFORMED));
        }
        frames.add(new Frame("a registration with a trailing byte",
            withBodyLength(Arrays.copyOf(register, register.length + 1),
            register.length + 1 - HEADER_LENGTH), STATUS_MALFORMED));
        for (final short providerLength : new short[]{0, 9, -1, Short.MAX_VALUE})
        {
            frames.add(new Frame("provider name of " + providerLength + " bytes",
                patchShort(register, HEADER_LENGTH + NODE_PROVIDER_LENGTH_OFFSET, providerLength), STATUS_MALFORMED));
        }
        for (final short addressLength : new short[]{0, 33, -5})
        {
            frames.add(new Frame("address of " + addressLength + " bytes",
                patchShort(register, HEADER_LENGTH + NODE_ADDRESS_LENGTH_OFFSET, addressLength), STATUS_MALFORMED));
        }
        frames.add(new Frame("a provider name in capitals",
            patch(register, HEADER_LENGTH + NODE_FIXED_LENGTH, (byte)'T'), STATUS_MALFORMED));
        frames.add(new Frame("node id 0", patchLong(register, HEADER_LENGTH + NODE_ID_OFFSET, 0), STATUS_MALFORMED));
        frames.add(new Frame("a tcp address of 5 bytes",
            request(TYPE_REGISTER_NODE, w -> w.putLong(501).putInt(2).putInt(1).putLong(1).putLong(1)
            .putLong(0).putShort((short)3).putShort((short)5).putBytes("tcp".getBytes(), 0, 3)
            .putBytes(new byte[5], 0, 5)), STATUS_MALFORMED));
        frames.add(new Frame("an shm address of 7 bytes",
            request(TYPE_REGISTER_NODE, w -> w.putLong(501).putInt(2).putInt(1).putLong(1).putLong(1)
            .putLong(0).putShort((short)3).putShort((short)7).putBytes("shm".getBytes(), 0, 3)
            .putBytes(new byte[7], 0, 7)), STATUS_MALFORMED));
        frames.add(new Frame("registering the MetaServer's own id",
            patchLong(register, HEADER_LENGTH + NODE_ID_OFFSET, 100), STATUS_MALFORMED));

        frames.add(new Frame("a heartbeat of 31 bytes",
            request(TYPE_HEARTBEAT, w -> w.putLong(1).putLong(1).putBytes(new byte[15], 0, 15)),
            STATUS_MALFORMED));
        frames.add(new Frame("a heartbeat of 33 bytes",
            request(TYPE_HEARTBEAT, w -> w.putLong(1).putLong(1).putToken(TOKEN)
            .putBytes(new byte[1], 0, 1)), STATUS_MALFORMED));
        frames.add(new Frame("a heartbeat of a node never registered",
            request(TYPE_HEARTBEAT, w -> w.putLong(12345).putLong(1)
            .putToken(TOKEN)), STATUS_NOT_REGISTERED));
        frames.add(new Frame("a heartbeat of another incarnation",
            request(TYPE_HEARTBEAT, w -> w.putLong(self.id()).putLong(self.epoch() + 1)
            .putToken(TOKEN)), STATUS_NOT_REGISTERED));
        frames.add(new Frame("a heartbeat without the node's token",
            request(TYPE_HEARTBEAT, w -> w.putLong(self.id()).putLong(self.epoch())
            .putToken(null)), STATUS_FORBIDDEN));
        frames.add(new Frame("a deregistration of another incarnation", request(TYPE_DEREGISTER_NODE,
            w -> w.putLong(self.id()).putLong(self.epoch() + 1).putToken(TOKEN)), STATUS_NOT_REGISTERED));

        final RemoteRegion region = new RemoteRegion("fine.name", self.id(), self.epoch(), 0x1000, 5, 4096, 7, 1);
        final byte[] publish = request(TYPE_PUBLISH_REGION, w -> w.putRegion(region).putToken(TOKEN));
        final int nameLengthAt = HEADER_LENGTH + REGION_NAME_OFFSET;
        for (final int nameLength : new int[]{129, 5000, Integer.MAX_VALUE})
        {
            frames.add(new Frame("a name of " + nameLength + " bytes", patchInt(publish, nameLengthAt, nameLength),
                STATUS_NAME_TOO_LONG));
        }
        frames.add(new Frame("a negative name length", patchInt(publish, nameLengthAt, -1), STATUS_MALFORMED));
        frames.add(new Frame("a name longer than the frame", patchInt(publish, nameLengthAt, 100), STATUS_MALFORMED));
        frames.add(new Frame("a 129-byte name that is there",
            request(TYPE_PUBLISH_REGION, w -> w.putLong(self.id()).putLong(self.epoch())
            .putLong(0x1000).putLong(4096).putInt(5).putInt(7).putInt(1).putInt(129).putBytes(new byte[129], 0, 129)
            .putToken(TOKEN)),
            STATUS_NAME_TOO_LONG));
        frames.add(new Frame("a name that is not UTF-8",
            patch(patch(publish, nameLengthAt + 4, (byte)0xc3), nameLengthAt + 5, (byte)0x28),
            STATUS_MALFORMED));
        frames.add(new Frame("a region of length 0", patchLong(publish, HEADER_LENGTH + REGION_LENGTH_OFFSET, 0),
            STATUS_MALFORMED));
        frames.add(new Frame("a region of negative length",
            patchLong(publish, HEADER_LENGTH + REGION_LENGTH_OFFSET, -4096), STATUS_MALFORMED));
        frames.add(new Frame("a region of node 0", patchLong(publish, HEADER_LENGTH + REGION_NODE_ID_OFFSET, 0),
            STATUS_MALFORMED));
        frames.add(new Frame("a region of an unregistered node",
            patchLong(publish, HEADER_LENGTH + REGION_NODE_ID_OFFSET, 777),
            STATUS_NOT_REGISTERED));
        frames.add(new Frame("a region of another incarnation",
            patchLong(publish, HEADER_LENGTH + REGION_NODE_EPOCH_OFFSET, self.epoch() + 1),
            STATUS_NOT_REGISTERED));
        frames.add(new Frame("a region claiming the MetaServer's tables", request(TYPE_PUBLISH_REGION, w -> w.putRegion(
            new RemoteRegion(MetaServer.TABLES_NAME_PREFIX + 100, self.id(), self.epoch(), 0x1000, 5, 4096, 7, 1))
            .putToken(TOKEN)),
            STATUS_NAME_TAKEN));
        frames.add(new Frame("withdrawing the MetaServer's tables",
            request(TYPE_WITHDRAW_REGION, w -> w.putName(MetaServer.TABLES_NAME_PREFIX + 100)
            .putToken(TOKEN)), STATUS_NAME_TAKEN));
        frames.add(new Frame("withdrawing a 200-byte name",
            request(TYPE_WITHDRAW_REGION, w -> w.putInt(200).putBytes(new byte[200], 0, 200)),
            STATUS_NAME_TOO_LONG));

        frames.add(new Frame("a replicated node from a node that is no MetaServer",
            request(TYPE_REPLICATE_NODE, w -> w.putNode(node).putToken(TOKEN)),
            STATUS_NOT_PEER));
        frames.add(new Frame("an empty full state from a node that is no MetaServer",
            flags(request(TYPE_SNAPSHOT, w -> w.putInt(0).putInt(0)),
            (short)(FLAG_FIRST | FLAG_LAST)), STATUS_NOT_PEER));
        frames.add(new Frame("a node removal from a node that is no MetaServer",
            request(TYPE_REPLICATE_NODE_REMOVAL, w -> w.putLong(self.id())),
            STATUS_NOT_PEER));
        frames.add(new Frame("a catch-up from a node that is no MetaServer", request(TYPE_CATCH_UP, w -> w.putLong(0)),
            STATUS_NOT_PEER));

        final byte[] oversized = new byte[MAX_FRAME_LENGTH + 4000];
        new Random(1).nextBytes(oversized);
        frames.add(new Frame("a frame larger than any the server takes", oversized, STATUS_MALFORMED));
        return frames;
    }

    private static Frame randomBytes(final Random random)
    {
        final byte[] bytes = new byte[random.nextInt(400)];
        random.nextBytes(bytes);
        if (bytes.length > VERSION_OFFSET && bytes[VERSION_OFFSET] == PROTOCOL_VERSION)
        {
            bytes[VERSION_OFFSET]++;
        }
        final int expected = bytes.length < HEADER_LENGTH ? STATUS_MALFORMED : STATUS_UNSUPPORTED_VERSION;
        return new Frame("random bytes " + Arrays.toString(Arrays.copyOf(bytes, Math.min(24, bytes.length))), bytes,
            expected, true);
    }

    private static Frame randomBody(final Random random)
    {
        final byte[] types =
            {TYPE_BOOTSTRAP, TYPE_REGISTER_NODE, TYPE_HEARTBEAT, TYPE_DEREGISTER_NODE, TYPE_PUBLISH_REGION,
            TYPE_WITHDRAW_REGION, TYPE_REPLICATE_NODE, TYPE_REPLICATE_NODE_REMOVAL, TYPE_REPLICATE_REGION,
            TYPE_REPLICATE_REGION_REMOVAL, TYPE_SNAPSHOT, TYPE_CATCH_UP};
        final byte type = types[random.nextInt(types.length)];
        final byte[] body = new byte[random.nextInt(300)];
        random.nextBytes(body);
        final boolean fromPeer = type >= TYPE_REPLICATE_NODE;
        return new Frame("a random " + typeName(type) + " body of " + body.length + " bytes",
            request(type, w -> w.putBytes(body, 0, body.length)), fromPeer ? STATUS_NOT_PEER : -1);
    }

    private interface Body
    {
        void write(MetaMessageWriter writer);
    }

    private static long nextRequestId = 1000;

    private static byte[] request(final byte type, final Body body)
    {
        final MemorySegment buffer = MemorySegment.ofArray(new byte[MAX_FRAME_LENGTH]);
        final MetaMessageWriter writer = new MetaMessageWriter().wrap(buffer).request(type, (short)0, nextRequestId++);
        body.write(writer);
        final int length = writer.finish();
        return buffer.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE);
    }

    private static byte[] flags(final byte[] frame, final short flags)
    {
        return patchShort(frame, FLAGS_OFFSET, flags);
    }

    private static byte[] withBodyLength(final byte[] frame, final int bodyLength)
    {
        return patchInt(frame, BODY_LENGTH_OFFSET, bodyLength);
    }

    private static byte[] patch(final byte[] frame, final int at, final byte value)
    {
        final byte[] copy = frame.clone();
        copy[at] = value;
        return copy;
    }

    private static byte[] patchShort(final byte[] frame, final int at, final short value)
    {
        final byte[] copy = frame.clone();
        ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN).putShort(at, value);
        return copy;
    }

    private static byte[] patchInt(final byte[] frame, final int at, final int value)
    {
        final byte[] copy = frame.clone();
        ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN).putInt(at, value);
        return copy;
    }

    private static byte[] patchLong(final byte[] frame, final int at, final long value)
    {
        final byte[] copy = frame.clone();
        ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN).putLong(at, value);
        return copy;
    }
}
