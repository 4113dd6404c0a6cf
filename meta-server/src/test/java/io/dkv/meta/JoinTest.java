package io.dkv.meta;

import io.dkv.raas.Connection;
import io.dkv.raas.Raas;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.lite.Join;
import io.dkv.raas.meta.MetaDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * LITE's join: a node that knows only the MetaServer's endpoint (the line {@code ./dkv meta} prints) and the
 * cluster secret becomes a node of the cluster, on the MetaServer's provider, under an id of its own, and
 * reaches what the other nodes published.
 */
class JoinTest
{
    @TempDir
    Path dir;

    private Path secretFile() throws IOException
    {
        final Path file = dir.resolve("cluster.secret");
        Files.writeString(file, java.util.HexFormat.of().formatHex(MetaTestSupport.SECRET));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aNodeJoinsByTheMetaServersEndpointAloneAndReadsWhatAnotherPublished(final String provider)
        throws IOException
    {
        try (MetaServer server = MetaTestSupport.startServer(provider, dir.resolve("meta"));
            Raas owner = MetaTestSupport.node(provider, 2, server.endpoint());
            Raas joined = Join.join(server.endpoint().toString(), secretFile()))
        {
            assertInstanceOf(MetaDirectory.class, MetaTestSupport.directoryOf(joined));
            assertEquals(provider, joined.self().address().provider());
            assertNotEquals(0, joined.self().id());
            final RemoteRegion published = owner.malloc(owner.self().id(), 4096, "joined.sees.this");
            final byte[] text = "published before the join".getBytes();
            MemorySegment.copy(MemorySegment.ofArray(text), 0, owner.localMemory(published), 0, text.length);

            final RemoteRegion found = joined.lookup("joined.sees.this");
            final byte[] back = new byte[text.length];
            try (Connection connection = joined.open(owner.self().id(), null))
            {
                connection.read(found, 0, MemorySegment.ofArray(back), 0, back.length);
            }
            assertArrayEquals(text, back);
            // and the others find the joined node through the MetaServer as well
            assertTrue(owner.nodes(joined.self().role()).stream().anyMatch(n -> n.id() == joined.self().id()),
                () -> owner.nodes(joined.self().role()).toString());
        }
    }

    @Test
    void anEndpointThatDoesNotParseIsRefusedNamingIt()
    {
        final IllegalArgumentException refused =
            assertThrows(IllegalArgumentException.class, () -> Join.join("meta:nonsense", dir.resolve("x")));
        assertTrue(refused.getMessage().contains("nonsense"), refused.getMessage());
    }
}
