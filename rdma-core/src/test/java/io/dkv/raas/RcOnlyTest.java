package io.dkv.raas;

import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import static io.dkv.raas.OneSidedTest.BE_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RaaS without DC, as on an RNIC that has none: devices that refuse every DC object ({@code dkv.verbs.dc=false}) make
 * the drivers run RC-only by themselves. A node's record then names its datagram queue pair (DC key 0); a peer sets up
 * an RC queue pair with it through a datagram handshake, and one-sided requests, allocations and messages of every
 * size and way work as they do over DC.
 */
class RcOnlyTest
{
    private static final Duration WAIT = Duration.ofSeconds(10);

    private static RaasPair withoutDc(final String provider)
    {
        return new RaasPair(provider, context ->
        {
            context.verbs().dc(false);
            return context;
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(60)
    void aNodeWithoutDcIsReadWrittenAndUpdatedOverRc(final String provider)
    {
        try (RaasPair pair = withoutDc(provider))
        {
            assertTrue(pair.a.self().rcOnly() && pair.b.self().rcOnly(), pair.a.self() + ", " + pair.b.self());
            // B allocates in its own memory: it reaches itself over RC as well
            final RemoteRegion owned = pair.b.malloc(pair.b.self().id(), 1 << 20, "table");
            final RemoteRegion region = pair.a.lookup("table");
            final Connection connection = pair.a.open(pair.b.self().id(), null);

            final byte[] data = new byte[3000];
            ThreadLocalRandom.current().nextBytes(data);
            connection.write(region, 4096, MemorySegment.ofArray(data), 0, data.length);
            final byte[] back = new byte[3000];
            connection.read(region, 4096, MemorySegment.ofArray(back), 0, back.length);
            assertArrayEquals(data, back);
            assertEquals(0, connection.faa(region, 64, 5));
            assertEquals(5, connection.cas(region, 64, 5, 9));
            assertEquals(9, pair.b.localMemory(owned).get(BE_LONG, 64));
            assertTrue(((RaasDriver)pair.a).usesRc(pair.b.self().id()), "A reaches B over RC");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(60)
    void messagesOfEverySizeGoBothWaysAndDatagramsStillWhenForced(final String provider)
    {
        try (RaasPair pair = withoutDc(provider); Listener listener = pair.b.listen(8))
        {
            final Connection client = pair.a.connect(pair.b.self().id(), 8, Flags.ADAPTIVE, null);
            final Connection server = listener.accept(WAIT);
            final MemorySegment in = MemorySegment.ofArray(new byte[300_000]);
            for (final int size : new int[]{1, 500, 3000, 20_000, 250_000})
            {
                final byte[] message = new byte[size];
                ThreadLocalRandom.current().nextBytes(message);
                client.send(MemorySegment.ofArray(message), 0, size, Flags.ADAPTIVE);
                assertEquals(size, server.recv(in, 0, 300_000, WAIT), size + " B");
                assertArrayEquals(message, in.asSlice(0, size).toArray(ValueLayout.JAVA_BYTE), size + " B");
                server.send(MemorySegment.ofArray(message), 0, size, Flags.ADAPTIVE);
                assertEquals(size, client.recv(in, 0, 300_000, WAIT), size + " B back");
                assertArrayEquals(message, in.asSlice(0, size).toArray(ValueLayout.JAVA_BYTE), size + " B back");
            }
            client.send(MemorySegment.ofArray(new byte[]{7}), 0, 1, Flags.FORCE_UD);
            assertEquals(1, server.recv(in, 0, 16, WAIT));
            assertEquals(7, in.get(ValueLayout.JAVA_BYTE, 0));
        }
    }
}
