package io.dkv.meta;

import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.meta.MetaDirectory;
import io.dkv.raas.meta.MetaDirectoryContext;
import io.dkv.raas.meta.MetaEndpoint;
import io.dkv.raas.meta.MetaFrameAuthenticator;
import io.dkv.raas.meta.MetaMessageReader;
import io.dkv.raas.meta.MetaMessageWriter;
import io.dkv.raas.meta.MetaRpcClient;
import org.agrona.concurrent.SystemEpochClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import java.util.function.Consumer;

import static io.dkv.raas.meta.MetaRpcDescriptor.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The control plane trusts only members: a peer without the cluster secret changes nothing, a member
 * without a node's token cannot change that node's records, a frame cannot be played again later,
 * and an operator (holding the secret) can remove any record.
 */
class HostilePeerTest
{
    private static final long MEMBER = 201;
    private static final long STRANGER = 66;
    private static final int WINDOW_MS = 30_000;
    private static final byte[] WRONG_SECRET = new byte[32];
    private static final byte[] WRONG_TOKEN = new byte[TOKEN_LENGTH];

    @TempDir
    Path dir;

    private MetaServer server;
    private Raas member;
    private Raas stranger;
    private RemoteRegion region;
    private NodeRecord before;
    private Peer peer;

    @BeforeEach
    void start()
    {
        Arrays.fill(WRONG_SECRET, (byte)7);
        Arrays.fill(WRONG_TOKEN, (byte)9);
        server = MetaTestSupport.startServer("shm", dir);
        member = MetaTestSupport.node("shm", MEMBER, server.endpoint());
        stranger = MetaTestSupport.node("shm", STRANGER, server.endpoint());
        region = member.malloc(member.self().id(), 4096, "member.region");
        before = server.node(MEMBER);
        peer = new Peer(stranger, server.endpoint().nodeId());
    }

    @AfterEach
    void stop()
    {
        peer.connection.close();
        stranger.close();
        member.close();
        server.close();
    }

    @Test
    void aPeerWithoutTheSecretCannotRegisterHeartbeatDeregisterPublishOrWithdraw()
    {
        final long refusedBefore = server.unauthenticatedRequests();
        for (final MetaFrameAuthenticator wrong : new MetaFrameAuthenticator[]{
            new MetaFrameAuthenticator(WRONG_SECRET, SystemEpochClock.INSTANCE, WINDOW_MS),
            new MetaFrameAuthenticator(null, SystemEpochClock.INSTANCE, WINDOW_MS)})
        {
            peer.expect(STATUS_UNAUTHENTICATED, "bad MAC: the cluster secret differs", wrong, TYPE_REGISTER_NODE, 0,
                w -> w.putNode(new NodeRecord(MEMBER, NodeRecord.ROLE_MEMORY, stranger.self().address(), 1, 2, 3, 0))
                .putToken(null));
            peer.expect(STATUS_UNAUTHENTICATED, "bad MAC", wrong, TYPE_REGISTER_NODE, 0,
                w -> w.putNode(new NodeRecord(777, NodeRecord.ROLE_MEMORY, stranger.self().address(), 1, 2, 3, 0))
                .putToken(null));
            peer.expect(STATUS_UNAUTHENTICATED, "bad MAC", wrong, TYPE_HEARTBEAT, 0,
                w -> w.putLong(MEMBER).putLong(before.epoch()).putToken(WRONG_TOKEN));
            peer.expect(STATUS_UNAUTHENTICATED, "bad MAC", wrong, TYPE_WITHDRAW_REGION, 0,
                w -> w.putName("member.region").putToken(WRONG_TOKEN));
            peer.expect(STATUS_UNAUTHENTICATED, "bad MAC", wrong, TYPE_PUBLISH_REGION, 0,
                w -> w.putRegion(new RemoteRegion("member.other", MEMBER, before.epoch(), 0x1000, 5, 4096, 7, 1))
                .putToken(WRONG_TOKEN));
            peer.expect(STATUS_UNAUTHENTICATED, "bad MAC", wrong, TYPE_DEREGISTER_NODE, 0,
                w -> w.putLong(MEMBER).putLong(before.epoch()).putToken(WRONG_TOKEN));
            peer.expect(STATUS_UNAUTHENTICATED, "bad MAC for an operator request", wrong, TYPE_DEREGISTER_NODE,
                FLAG_OPERATOR,
                w -> w.putLong(MEMBER).putLong(0).putToken(null));
        }
        assertEquals(before, server.node(MEMBER), "the member's record is unchanged");
        assertEquals(region, server.region("member.region"), "the member's region is still there");
        assertNull(server.region("member.other"));
        assertNull(server.node(777), "no new node");
        assertEquals(14, server.unauthenticatedRequests() - refusedBefore, "each refusal is counted");
    }

    @Test
    void aMemberWithoutTheNodesTokenCannotReRegisterItElsewhereDeregisterItOrWithdrawItsRegions()
    {
        final String why = "node 201's records can be changed only by node 201 (token mismatch)";
        final MetaFrameAuthenticator member = peer.authenticator;
        final long forbiddenBefore = server.forbiddenRequests();
        peer.expect(STATUS_FORBIDDEN, why, member, TYPE_REGISTER_NODE, 0,
            w -> w.putNode(new NodeRecord(MEMBER, NodeRecord.ROLE_MEMORY, stranger.self().address(), 1, 2, 3, 0))
            .putToken(WRONG_TOKEN));
        assertTrue(peer.lastMessage.contains("its lease lapses in"), peer.lastMessage);
        peer.expect(STATUS_FORBIDDEN, why, member, TYPE_REGISTER_NODE, 0,
            w -> w.putNode(new NodeRecord(MEMBER, NodeRecord.ROLE_MEMORY, stranger.self().address(), 1, 2, 3, 0))
            .putToken(null));
        peer.expect(STATUS_FORBIDDEN, why, member, TYPE_DEREGISTER_NODE, 0,
            w -> w.putLong(MEMBER).putLong(before.epoch()).putToken(WRONG_TOKEN));
        peer.expect(STATUS_FORBIDDEN, why, member, TYPE_HEARTBEAT, 0,
            w -> w.putLong(MEMBER).putLong(before.epoch()).putToken(null));
        peer.expect(STATUS_FORBIDDEN, why, member, TYPE_WITHDRAW_REGION, 0,
            w -> w.putName("member.region").putToken(WRONG_TOKEN));
        peer.expect(STATUS_FORBIDDEN, why, member, TYPE_PUBLISH_REGION, 0,
            w -> w.putRegion(new RemoteRegion("member.other", MEMBER, before.epoch(), 0x1000, 5, 4096, 7, 1))
            .putToken(WRONG_TOKEN));
        assertEquals(6, server.forbiddenRequests() - forbiddenBefore, "each refusal is counted");
        assertEquals(before, server.node(MEMBER), "the member's record is unchanged");
        assertEquals(region, server.region("member.region"));
        assertNull(server.region("member.other"));

        final byte[] token = server.token(MEMBER);
        assertNotNull(token, "the member registered with a token");
        peer.expect(STATUS_OK, "", member, TYPE_REGISTER_NODE, 0, w -> w.putNode(before).putToken(token));
        assertEquals(before.epoch(), server.node(MEMBER).epoch(),
            "the token's holder registers again at once (a restart)");
    }

    @Test
    void aFrameOutsideTheTimestampWindowOrReplayedOnItsConnectionIsRefused()
    {
        final MetaFrameAuthenticator lateClock = new MetaFrameAuthenticator(MetaTestSupport.SECRET,
            () -> System.currentTimeMillis() - 2 * WINDOW_MS, WINDOW_MS);
        peer.expect(STATUS_UNAUTHENTICATED, "outside the 30 s window", lateClock, TYPE_BOOTSTRAP, 0, w -> { });
        final MetaFrameAuthenticator earlyClock = new MetaFrameAuthenticator(MetaTestSupport.SECRET,
            () -> System.currentTimeMillis() + 2 * WINDOW_MS, WINDOW_MS);
        peer.expect(STATUS_UNAUTHENTICATED, "outside the 30 s window", earlyClock, TYPE_BOOTSTRAP, 0, w -> { });

        peer.expect(STATUS_OK, "", peer.authenticator, TYPE_BOOTSTRAP, 0, w -> { });
        final byte[] captured = peer.lastRequest.clone();
        final int length = captured.length;
        MemorySegment.copy(captured, 0, peer.buffer, ValueLayout.JAVA_BYTE, 0, length);
        assertEquals(STATUS_UNAUTHENTICATED, peer.sendRaw(length), "the same frame again");
        assertTrue(peer.lastMessage.contains("a replayed frame"), peer.lastMessage);
    }

    @Test
    void anOperatorRemovesAnyNodeOrRegionWithTheSecretAlone()
    {
        final RemoteRegion second = member.malloc(member.self().id(), 4096, "member.second");
        final MetaRpcClient operator =
            new MetaRpcClient(peer.connection, peer.buffer, stranger.allocateBuffer(MAX_FRAME_LENGTH),
            Duration.ofSeconds(5),
            new MetaFrameAuthenticator(MetaTestSupport.SECRET, SystemEpochClock.INSTANCE, WINDOW_MS));
        assertEquals(second, server.region("member.second"));
        operator.beginOperator(TYPE_WITHDRAW_REGION).putName("member.second").putToken(null);
        operator.call();
        assertNull(server.region("member.second"), "withdrawn by the operator");
        operator.beginOperator(TYPE_DEREGISTER_NODE).putLong(MEMBER).putLong(0).putToken(null);
        operator.call();
        assertNull(server.node(MEMBER), "evicted by the operator");
        assertNull(server.region("member.region"), "with its regions");
    }

    @Test
    void aNodeWithAnotherSecretIsToldTheMetaServerRefusedItAfterOneAsk()
    {
        final long refusedBefore = server.unauthenticatedRequests();
        final RaasException refused = assertThrows(RaasException.class, () -> RaasDriver.start(
            MetaTestSupport.nodeContext("shm", 68),
            new MetaDirectory(MetaTestSupport.directoryContext(server.endpoint()).clusterSecret(WRONG_SECRET))));
        assertEquals(refusal("given to this process"), refused.getMessage());
        assertTrue(refused.getCause().getMessage().contains("is not authentic: bad MAC: the cluster secret differs"),
            "what the MetaServer's reply said, kept as the cause: " + refused.getCause().getMessage());
        assertEquals(refusedBefore + 1, server.unauthenticatedRequests(),
            "asked once: a MetaServer that refused answered, and is not waited out as one that does not answer");
    }

    @Test
    void aNodeWithAnotherSecretFileIsToldWhichFileTheMetaServerRefused() throws IOException
    {
        final Path wrong = dir.resolve("wrong-secret");
        Files.writeString(wrong, HexFormat.of().formatHex(WRONG_SECRET));
        Files.setPosixFilePermissions(wrong, PosixFilePermissions.fromString("rw-------"));
        final MetaDirectoryContext fromFile = new MetaDirectoryContext().clusterSecretFile(wrong)
            .endpoints(server.endpoint());
        final RaasException refused = assertThrows(RaasException.class, () -> RaasDriver.start(
            MetaTestSupport.nodeContext("shm", 68), new MetaDirectory(fromFile)));
        assertEquals(refusal("from " + wrong.toAbsolutePath()), refused.getMessage());
    }

    @Test
    void aMetaServerThatDoesNotAnswerIsStillSaidSo()
    {
        final MetaEndpoint nobody = MetaEndpoint.parse("meta:1@shm:0123456789abcdef#00002001:0123456789abcdef");
        final RaasException silent = assertThrows(RaasException.class, () -> RaasDriver.start(
            MetaTestSupport.nodeContext("shm", 68),
            new MetaDirectory(MetaTestSupport.directoryContext(nobody).rpcTimeoutMs(300))));
        assertTrue(silent.getMessage().startsWith("no MetaServer answered: MetaServer " + nobody),
            silent.getMessage());
    }

    /** @return what a node is told when the MetaServer refused its secret, which came from {@code source}. */
    private String refusal(final String source)
    {
        return "the MetaServer at " + server.endpoint().address() + " (node " + server.endpoint().nodeId() +
            ") refused this node's cluster secret (" + source + "): it does not match the cluster's";
    }

    @Test
    void aFloodOfGarbageAndMutatedFramesLeavesAMemberServed()
    {
        final MetaDirectory directory = (MetaDirectory)MetaTestSupport.directoryOf(member);
        final long lease = directory.leaseExpiry();
        final Random random = new Random(42);
        final long refusedBefore = server.unauthenticatedRequests();
        int mutated = 0;
        for (int i = 0; i < 3000; i++)
        {
            peer.expect(STATUS_OK, "", peer.authenticator, TYPE_BOOTSTRAP, 0, w -> { });
            final byte[] frame = peer.lastRequest.clone();
            if (i % 3 == 2)
            {
                random.nextBytes(frame);
                frame[VERSION_OFFSET] = PROTOCOL_VERSION;
            }
            else
            {
                // one bit flipped anywhere past the version: the mac no longer matches
                final int at = 2 + random.nextInt(frame.length - 2);
                frame[at] ^= (byte)(1 << random.nextInt(8));
                frame[TYPE_OFFSET] = TYPE_DEREGISTER_NODE;
            }
            MemorySegment.copy(frame, 0, peer.buffer, ValueLayout.JAVA_BYTE, 0, frame.length);
            final short status = peer.sendRaw(frame.length);
            assertTrue(status == STATUS_UNAUTHENTICATED || status == STATUS_MALFORMED,
                statusName(status) + ": " + peer.lastMessage);
            mutated++;
        }
        assertTrue(server.unauthenticatedRequests() - refusedBefore > mutated / 2, "refused as not authentic");
        MetaTestSupport.await("the member to renew its lease through the flood", Duration.ofSeconds(10),
            () -> directory.leaseExpiry() > lease, () -> "last failure: " + directory.lastHeartbeatFailure());
        assertEquals(before.epoch(), server.node(MEMBER).epoch(), "the member's record is its own");
        assertEquals(region, stranger.lookup("member.region"));
    }

    /** A hostile or operator peer that writes frames by hand. */
    private static final class Peer
    {
        final Connection connection;
        final MemorySegment buffer;
        final MetaMessageWriter writer = new MetaMessageWriter();
        final MetaMessageReader reader = new MetaMessageReader();
        final MetaFrameAuthenticator authenticator =
            new MetaFrameAuthenticator(MetaTestSupport.SECRET, SystemEpochClock.INSTANCE, WINDOW_MS);
        long nextRequestId = 1;
        byte[] lastRequest;
        String lastMessage;

        Peer(final Raas raas, final long server)
        {
            connection = raas.connect(server, SERVICE, Flags.ADAPTIVE, null);
            buffer = raas.allocateBuffer(MAX_FRAME_LENGTH);
        }

        void expect(
            final short status,
            final String why,
            final MetaFrameAuthenticator sealer,
            final byte type,
            final int flags,
            final Consumer<MetaMessageWriter> body)
        {
            writer.wrap(buffer).request(type, (short)flags, nextRequestId++);
            body.accept(writer);
            final int length = sealer.seal(buffer, writer.finish());
            lastRequest = buffer.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE);
            final short got = sendRaw(length);
            assertEquals(statusName(status), statusName(got), typeName(type) + ": " + lastMessage);
            assertTrue(lastMessage.contains(why), typeName(type) + ": " + lastMessage);
        }

        short sendRaw(final int length)
        {
            connection.send(buffer, 0, length, Flags.ADAPTIVE);
            final int received = connection.recv(buffer, 0, MAX_FRAME_LENGTH, Duration.ofSeconds(5));
            assertEquals(null, authenticator.verify(buffer, received), "the server's reply is sealed with the secret");
            reader.wrap(buffer, 0, received - MAC_LENGTH).body();
            final short status = reader.status();
            lastMessage = status == STATUS_OK ? "" : reader.getRemainingText();
            return status;
        }
    }
}
