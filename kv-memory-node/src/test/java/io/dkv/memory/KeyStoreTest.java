package io.dkv.memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A memory node's data directory: whose it is, what it keeps of each key (its write id too), and what it refuses.
 */
class KeyStoreTest
{
    private static final byte[] SECRET = bytes("a cluster secret of thirty-two bytes or more");
    private static final byte[] OTHER_SECRET = bytes("another cluster's secret, also long enough");

    private record Stored(String key, long expireAt, long writeId, long epoch, String value)
    {
    }

    private static List<Stored> contents(final KeyStore store)
    {
        final List<Stored> stored = new ArrayList<>();
        store.forEach((key, expireAt, writeId, epoch, value) -> stored.add(new Stored(text(key), expireAt, writeId,
            epoch, text(value))));
        return stored;
    }

    @Test
    void aKeyComesBackAsTheWriteItWasAndTheDirectoryKnowsItHeldTheNodesKeys(@TempDir final Path data) throws Exception
    {
        final byte[] cluster = KeyStore.fingerprint(SECRET);
        try (KeyStore store = KeyStore.open(data, 101, cluster))
        {
            assertFalse(store.restored(), "a new directory holds no node's keys yet");
            try (WriteBatch batch = new WriteBatch())
            {
                store.put(batch, bytes("k1"), 0, 0x1234_5678_9abc_def0L, 35_344_512_000L, bytes("v1"));
                store.put(batch, bytes("k2"), 42, -7, 3, bytes("v2"));
                store.put(batch, bytes("gone"), 0, 9, 4, bytes("v"));
                store.delete(batch, bytes("gone"));
                store.write(batch, false);
            }
        }
        assertTrue(MemoryNode.holdsKeysOf(data, 101, SECRET), "the node comes back with its keys");
        try (KeyStore store = KeyStore.open(data, 101, cluster))
        {
            assertTrue(store.restored());
            assertEquals(List.of(new Stored("k1", 0, 0x1234_5678_9abc_def0L, 35_344_512_000L, "v1"),
                new Stored("k2", 42, -7, 3, "v2")), contents(store));
        }
    }

    @Test
    void aDirectoryOfAnotherNodeOrClusterIsRefusedNamingBoth(@TempDir final Path data)
    {
        assertFalse(MemoryNode.holdsKeysOf(data, 101, SECRET));
        final IllegalStateException otherNode = assertThrows(IllegalStateException.class,
            () -> MemoryNode.holdsKeysOf(data, 102, SECRET));
        assertEquals("the data directory " + data + " holds memory node 101's keys, not node 102's: start node 101 " +
            "on it, or give node 102 a directory of its own (an empty one: its keys then come from their other " +
            "copies)", otherNode.getMessage());

        final IllegalStateException otherCluster = assertThrows(IllegalStateException.class,
            () -> MemoryNode.holdsKeysOf(data, 101, OTHER_SECRET));
        assertTrue(otherCluster.getMessage().startsWith("the data directory " + data + " belongs to another " +
            "cluster"), otherCluster.getMessage());
        assertTrue(otherCluster.getMessage().endsWith("start this node with that cluster's secret file, or on an " +
            "empty --data-dir"), otherCluster.getMessage());
        assertTrue(MemoryNode.holdsKeysOf(data, 101, null), "no secret given: no cluster to check against");
    }

    @Test
    void aStoreOfFormat2IsUpgradedInPlaceEachKeyGivenAWriteId(@TempDir final Path data) throws Exception
    {
        try (Options options = new Options().setCreateIfMissing(true);
            RocksDB old = RocksDB.open(options, data.toString()))
        {
            old.put(new byte[0], ByteBuffer.allocate(Integer.BYTES).putInt(2).array());
            old.put(bytes("a"), ByteBuffer.allocate(Long.BYTES + 2).putLong(0).put(bytes("va")).array());
            old.put(bytes("b"), ByteBuffer.allocate(Long.BYTES + 2).putLong(77).put(bytes("vb")).array());
        }
        try (KeyStore store = KeyStore.open(data, 101, null))
        {
            assertTrue(store.restored(), "format 2 held this node's keys: it had no other");
            assertEquals(2, store.upgradedKeys());
            final List<Stored> stored = contents(store);
            assertEquals(List.of("a", "b"), stored.stream().map(Stored::key).toList(), "the format key is gone");
            assertEquals(List.of("va", "vb"), stored.stream().map(Stored::value).toList());
            assertEquals(List.of(0L, 77L), stored.stream().map(Stored::expireAt).toList());
            stored.forEach(key -> assertNotEquals(0, key.writeId(), "each key a write of its own: " + key));
            assertEquals(List.of(0L, 0L), stored.stream().map(Stored::epoch).toList(), "written before epochs");
        }
        try (KeyStore again = KeyStore.open(data, 101, null))
        {
            assertEquals(0, again.upgradedKeys(), "upgraded once");
        }
    }

    @Test
    void aStoreOfFormat3IsUpgradedInPlaceEachKeyOfEpoch0AndItsVersionsKeptFromThen(@TempDir final Path data)
        throws Exception
    {
        // format 3 as a node of that version left it: two column families, rows of expiry and write id
        formatThreeStore(data, (old, handles) ->
        {
            old.put(handles.get(0), bytes("a"), ByteBuffer.allocate(16 + 2).putLong(0).putLong(11).put(bytes("va"))
                .array());
            old.put(handles.get(0), bytes("b"), ByteBuffer.allocate(16 + 2).putLong(77).putLong(12).put(bytes("vb"))
                .array());
        });
        try (KeyStore store = KeyStore.open(data, 101, null))
        {
            assertTrue(store.restored());
            assertEquals(2, store.upgradedKeys());
            assertEquals(List.of(new Stored("a", 0, 11, 0, "va"), new Stored("b", 77, 12, 0, "vb")), contents(store));
        }
        try (KeyStore again = KeyStore.open(data, 101, null))
        {
            assertEquals(0, again.upgradedKeys(), "upgraded once");
            assertEquals(2, contents(again).size());
        }
    }

    @Test
    void anUpgradeCutShortGoesOnAfterTheLastKeyItRewrote(@TempDir final Path data) throws Exception
    {
        // format 3, its upgrade cut short after key "a": a's row is of format 4 already, b's still of format 3
        formatThreeStore(data, (old, handles) ->
        {
            old.put(handles.get(1), bytes("upgraded-through"), bytes("a"));
            old.put(handles.get(0), bytes("a"), ByteBuffer.allocate(24 + 2).putLong(0).putLong(11).putLong(0)
                .put(bytes("va")).array());
            old.put(handles.get(0), bytes("b"), ByteBuffer.allocate(16 + 2).putLong(77).putLong(12).put(bytes("vb"))
                .array());
        });
        try (KeyStore store = KeyStore.open(data, 101, null))
        {
            assertEquals(1, store.upgradedKeys(), "b alone");
            assertEquals(List.of(new Stored("a", 0, 11, 0, "va"), new Stored("b", 77, 12, 0, "vb")), contents(store));
        }
    }

    @Test
    void aStoreOfFormat4KeepsItsVersionRowsAsVersionsAndIsMarkedFormat5(@TempDir final Path data) throws Exception
    {
        // format 4 as a node of that version left it: every version a row of the "versions" column family
        final List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (DBOptions options = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
            RocksDB old = RocksDB.open(options, data.toString(), List.of(
                new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY),
                new ColumnFamilyDescriptor(KeyStore.NODE_FAMILY.getBytes(StandardCharsets.US_ASCII)),
                new ColumnFamilyDescriptor(KeyStore.VERSIONS_FAMILY.getBytes(StandardCharsets.US_ASCII))), handles))
        {
            old.put(handles.get(1), bytes("format"), ByteBuffer.allocate(Integer.BYTES).putInt(4).array());
            old.put(handles.get(1), bytes("node"), ByteBuffer.allocate(Long.BYTES).putLong(101).array());
            old.put(handles.get(0), bytes("a"), ByteBuffer.allocate(24 + 2).putLong(0).putLong(11).putLong(9)
                .put(bytes("va")).array());
            old.put(handles.get(2), ByteBuffer.allocate(2 + 1 + 16).putShort((short)1).put(bytes("a")).putLong(9)
                .putLong(11).array(), ByteBuffer.allocate(16 + 2).putLong(5).putLong(0).put(bytes("va")).array());
            handles.forEach(ColumnFamilyHandle::close);
        }
        for (int open = 0; open < 2; open++)
        {
            try (KeyStore store = KeyStore.open(data, 101, null))
            {
                assertEquals(List.of(new Stored("a", 0, 11, 9, "va")), contents(store));
                final List<String> versions = new ArrayList<>();
                store.forEachVersion((key, epoch, writeId, previous, expireAt, value) ->
                    versions.add(text(key) + "@" + epoch + " w" + writeId + " p" + previous + " " + text(value)));
                assertEquals(List.of("a@9 w11 p5 va"), versions, "a rollback reads it as a version still");
            }
        }
        final List<ColumnFamilyHandle> reopened = new ArrayList<>();
        try (DBOptions options = new DBOptions();
            RocksDB db = RocksDB.openReadOnly(options, data.toString(), List.of(
                new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY),
                new ColumnFamilyDescriptor(KeyStore.NODE_FAMILY.getBytes(StandardCharsets.US_ASCII)),
                new ColumnFamilyDescriptor(KeyStore.VERSIONS_FAMILY.getBytes(StandardCharsets.US_ASCII))), reopened))
        {
            assertEquals(KeyStore.FORMAT, ByteBuffer.wrap(db.get(reopened.get(1), bytes("format"))).getInt());
            reopened.forEach(ColumnFamilyHandle::close);
        }
    }

    /** What a test puts into a directory of format 3, as a node of that version left it. */
    @FunctionalInterface
    private interface OldRows
    {
        void put(RocksDB old, List<ColumnFamilyHandle> handles) throws Exception;
    }

    /** A directory of format 3 of node 101: two column families, key rows of expiry and write id. */
    private static void formatThreeStore(final Path data, final OldRows rows) throws Exception
    {
        final List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (DBOptions options = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
            RocksDB old = RocksDB.open(options, data.toString(), List.of(
                new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY),
                new ColumnFamilyDescriptor(KeyStore.NODE_FAMILY.getBytes(StandardCharsets.US_ASCII))), handles))
        {
            old.put(handles.get(1), bytes("format"), ByteBuffer.allocate(Integer.BYTES).putInt(3).array());
            old.put(handles.get(1), bytes("node"), ByteBuffer.allocate(Long.BYTES).putLong(101).array());
            rows.put(old, handles);
            handles.forEach(ColumnFamilyHandle::close);
        }
    }

    @Test
    void aDamagedDirectoryIsRefusedNamingItAndTheWayOut(@TempDir final Path data) throws Exception
    {
        try (KeyStore store = KeyStore.open(data, 101, null))
        {
            try (WriteBatch batch = new WriteBatch())
            {
                store.put(batch, bytes("k"), 0, 1, 1, bytes("v"));
                store.write(batch, true);
            }
        }
        try (Stream<Path> files = Files.list(data))
        {
            for (final Path file : files.filter(f -> f.getFileName().toString().startsWith("MANIFEST")).toList())
            {
                Files.write(file, new byte[]{1, 2, 3});
            }
        }
        final IllegalStateException refused = assertThrows(IllegalStateException.class,
            () -> KeyStore.open(data, 101, null));
        assertTrue(refused.getMessage().startsWith("cannot open the memory node's key store in " + data),
            refused.getMessage());
        assertTrue(refused.getMessage().contains("move the directory away and start the node empty"),
            refused.getMessage());
    }

    @Test
    void theFingerprintNamesTheClusterWithoutItsSecret()
    {
        assertArrayEquals(KeyStore.fingerprint(SECRET), KeyStore.fingerprint(SECRET.clone()));
        assertEquals(16, KeyStore.fingerprint(SECRET).length);
        assertFalse(java.util.Arrays.equals(KeyStore.fingerprint(SECRET), KeyStore.fingerprint(OTHER_SECRET)));
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(final byte[] bytes)
    {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
