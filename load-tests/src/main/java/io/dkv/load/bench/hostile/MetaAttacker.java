package io.dkv.load.bench.hostile;

import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RaasException;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.meta.MetaEndpoint;
import io.dkv.raas.meta.MetaFrameAuthenticator;
import io.dkv.raas.meta.MetaMessageReader;
import io.dkv.raas.meta.MetaMessageWriter;
import io.dkv.verbs.VerbsContext;
import org.agrona.concurrent.SystemEpochClock;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.SplittableRandom;

import static io.dkv.raas.meta.MetaRpcDescriptor.*;

/**
 * Speaks to a MetaServer as a peer without the cluster secret: RPCs that would take over, remove
 * or strip the memory node (sealed with a wrong secret, or mutated), and CONNECTs to its service
 * that are never used. The peer is a RaaS node of its own that knows only the MetaServer's record.
 */
final class MetaAttacker implements AutoCloseable
{
    private static final long STRANGER_ID = 666;
    private static final Duration REPLY_WAIT = Duration.ofSeconds(10);

    private final Raas stranger;
    private final MetaEndpoint meta;
    private final SplittableRandom random;

    MetaAttacker(final MetaEndpoint meta, final long seed)
    {
        this.meta = meta;
        this.random = new SplittableRandom(seed);
        final StaticDirectory directory = new StaticDirectory();
        directory.register(meta.toNodeRecord());
        this.stranger = RaasDriver.start(new RaasContext().verbs(new VerbsContext().provider("tcp")
            .tcpAddress("127.0.0.1:0"))
            .nodeId(STRANGER_ID).timeoutMs(5_000).advertisedBytes(4096), directory);
    }

    /**
     * Requests against a member's records, each sealed with a secret that is not the cluster's or
     * with a byte of a sealed frame changed; an OK answer is a breach.
     */
    void rpcs(final AttackTally tally, final NodeRecord victim, final RemoteRegion victimRegion, final int requests)
    {
        final byte[] wrongSecret = new byte[32];
        random.nextBytes(wrongSecret);
        final byte[] wrongToken = new byte[TOKEN_LENGTH];
        random.nextBytes(wrongToken);
        final MetaFrameAuthenticator wrong = new MetaFrameAuthenticator(wrongSecret, SystemEpochClock.INSTANCE, 30_000);
        final MemorySegment buffer = stranger.allocateBuffer(MAX_FRAME_LENGTH);
        final MetaMessageWriter writer = new MetaMessageWriter();
        final MetaMessageReader reader = new MetaMessageReader();
        Connection connection = null;
        long requestId = 1;
        try
        {
            for (int i = 0; i < requests; i++)
            {
                if (connection == null)
                {
                    connection = stranger.connect(meta.nodeId(), SERVICE, Flags.ADAPTIVE, null);
                    tally.connections.incrementAndGet();
                }
                writer.wrap(buffer);
                switch (i % 4)
                {
                    case 0 -> writer.request(TYPE_REGISTER_NODE, (short)0, requestId++)
                        .putNode(new NodeRecord(victim.id(),
                        victim.role(), stranger.self().address(), 1, 2, victim.epoch() + 1, 0)).putToken(wrongToken);
                    case 1 -> writer.request(TYPE_DEREGISTER_NODE, (short)0, requestId++).putLong(victim.id())
                        .putLong(victim.epoch()).putToken(wrongToken);
                    case 2 -> writer.request(TYPE_WITHDRAW_REGION, (short)0, requestId++).putName(victimRegion.name())
                        .putToken(wrongToken);
                    default -> writer.request(TYPE_DEREGISTER_NODE, FLAG_OPERATOR, requestId++).putLong(victim.id())
                        .putLong(0)
                        .putToken(null);
                }
                final int length = wrong.seal(buffer, writer.finish());
                if (i % 8 == 7)
                {
                    final long at = random.nextLong(length);
                    final byte flipped = (byte)(buffer.get(ValueLayout.JAVA_BYTE, at) ^ (1 << random.nextInt(8)));
                    buffer.set(ValueLayout.JAVA_BYTE, at, flipped);
                }
                tally.frames.incrementAndGet();
                try
                {
                    connection.send(buffer, 0, length, Flags.ADAPTIVE);
                    final int received = connection.recv(buffer, 0, MAX_FRAME_LENGTH, REPLY_WAIT);
                    tally.responses.incrementAndGet();
                    if (received >= HEADER_LENGTH)
                    {
                        reader.wrap(buffer, 0, received - MAC_LENGTH).body();
                        if (reader.status() == STATUS_OK)
                        {
                            tally.successes.incrementAndGet();
                        }
                    }
                }
                catch (final RaasException refused)
                {
                    tally.cutOff.incrementAndGet();
                    connection.close();
                    connection = null;
                }
            }
        }
        finally
        {
            if (connection != null)
            {
                connection.close();
            }
        }
    }

    /**
     * CONNECTs to the MetaServer's service, as fast as it answers them, held and never used: the
     * MetaServer must not keep what the peer never uses. They go with this attacker.
     */
    void connects(final AttackTally tally, final int connects)
    {
        for (int i = 0; i < connects; i++)
        {
            try
            {
                stranger.connect(meta.nodeId(), SERVICE, Flags.ADAPTIVE, null);
                tally.connections.incrementAndGet();
                tally.frames.incrementAndGet();
            }
            catch (final RaasException refused)
            {
                tally.refused.incrementAndGet();
            }
        }
    }

    public void close()
    {
        stranger.close();
    }
}
