package io.dkv.meta;

import io.dkv.raas.Connection;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.meta.MetaDirectory;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Two drivers whose only directory is a MetaServer find each other and each other's regions by
 * one-sided READs of its tables, then talk directly.
 */
class EndToEndTest
{
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void twoNodesFindEachOtherThroughTheMetaServerAndReadARegionThePeerPublished(final String provider)
    {
        try (MetaServer server = MetaTestSupport.startServer(provider, dir);
            Raas a = MetaTestSupport.node(provider, 1, server.endpoint());
            Raas b = MetaTestSupport.node(provider, 2, server.endpoint()))
        {
            assertInstanceOf(MetaDirectory.class, MetaTestSupport.directoryOf(a));
            final RemoteRegion owned = b.malloc(b.self().id(), 64 * 1024, "b.data");
            final byte[] text = "published by node 2, read by node 1".getBytes();
            MemorySegment.copy(text, 0, b.localMemory(owned), ValueLayout.JAVA_BYTE, 4096, text.length);

            final RemoteRegion found = a.lookup("b.data");
            assertEquals(owned, found);
            final NodeRecord peer = MetaTestSupport.directoryOf(a).node(b.self().id());
            assertNotNull(peer);
            assertEquals(b.self().dcKey(), peer.dcKey());
            assertEquals(b.self().address(), peer.address());

            final Connection connection = a.open(b.self().id(), null);
            final byte[] back = new byte[text.length];
            connection.read(found, 4096, MemorySegment.ofArray(back), 0, back.length);
            assertArrayEquals(text, back);

            connection.faa(found, 0, 7);
            assertEquals(7,
                b.localMemory(owned).get(ValueLayout.JAVA_LONG.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 0));
        }
    }
}
