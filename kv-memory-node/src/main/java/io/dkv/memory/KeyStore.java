package io.dkv.memory;

import io.dkv.format.KvBlockLayout;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.VectorMemTableConfig;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * The memory node's keys on disk (RocksDB): what a restarted node loads back into its index and
 * heap. Written by the request server's thread only (and by the node's start, before that thread runs).
 *
 * <pre>
 * column family "default"
 *   key                 value
 *   a client's key      expireAt  long   epoch milliseconds, 0: never (as the block's, {@code KvBlockLayout})
 *                       writeId   long   the write's id, the same in every replica's copy ({@code KvBlockLayout})
 *                       epoch     long   the write's durable epoch (its block's), 0 for a key of format 3 or before
 *                       value     the rest
 * column family "versions": versions the sweep carried out of a segment of the version log it dropped, for a key
 * with no later version in the log (format 4 kept every version here), dropped once D has passed a newer one
 * (kv-memory-node/README.md, "Async across nodes"); every other version is in the version log ({@link VersionLog},
 * in the directory's "versions" folder), which is written before each write of this store and forced before each of
 * its fsyncs and before the node's durable epoch is written, so that no key's row and no durable epoch on disk counts
 * on a version that is not
 *   key                 keyLength short  big-endian, so that one key's versions are together and no other's among them
 *                       key              the client's key
 *                       epoch     long   the write's epoch (its block's), big-endian: a key's versions in epoch order
 *                       writeId   long   the write's id
 *   value               previous  long   the low 48 bits of the write id of the version it replaced, 0: none;
 *                                        bit 62 ({@link #SYNC_VERSION}): its writer waited for the disk (durability
 *                                        sync), so a rollback to a cut below it keeps it
 *                       expireAt  long   as the block's: a tombstone's says so, with no value
 *                       value     the rest
 * column family "dkv-node": whose directory this is
 *   "format"            int      {@link #FORMAT}
 *   "node"              long     the memory node whose keys these are
 *   "cluster"           16 bytes the cluster's fingerprint (from its secret), absent when the node was given none
 *   "durable"           long     the node's durable epoch as it last kept it, absent before the first
 *                                (kv-memory-node/README.md, "Async across nodes")
 *   "cluster-durable"   long     the cluster's durable epoch D the node last dropped versions by, written before
 *                                that pass's deletes: every version that D needs is on disk
 *   "upgraded-through"  bytes    while an upgrade of an older format is under way: the last key it rewrote
 * </pre>
 *
 * Why the write id: a node restarted on its disk takes its keys back as the writes they were, so a refill finds the
 * copies that are alike in place, and when every copy of a key went down the copy of the replica that served last
 * can be compared with the others (kv-memory-node/README.md, "Restarting from disk"). Format 2 (no write ids, its
 * format under the empty key) is upgraded in place when opened, each key given a write id of its own, as format 2's
 * restart did; format 3 (no versions, no epochs) is upgraded in place, each key of epoch 0 and no versions yet;
 * format 1 (values alone) is refused rather than misread. A directory of another node or another
 * cluster is refused, naming both: serving it would put another node's keys in this one's place.
 */
final class KeyStore implements AutoCloseable
{
    static
    {
        RocksDB.loadLibrary();
    }

    /**
     * 5: versions in a log beside the store. 4: versions kept (in the store). 3: values carry their write id, and the
     * directory says whose it is. 2: values carry their expiry.
     */
    static final int FORMAT = 5;
    static final String NODE_FAMILY = "dkv-node";
    static final String VERSIONS_FAMILY = "versions";
    /** A version's row key past the client's key: its epoch and write id. */
    private static final int VERSION_SUFFIX = 2 * Long.BYTES;
    private static final byte[] FORMAT_KEY = "format".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NODE_KEY = "node".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CLUSTER_KEY = "cluster".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DURABLE_KEY = "durable".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CLUSTER_DURABLE_KEY = "cluster-durable".getBytes(StandardCharsets.US_ASCII);
    /** The last key an upgrade rewrote, while it is under way. */
    private static final byte[] UPGRADE_PROGRESS_KEY = "upgraded-through".getBytes(StandardCharsets.US_ASCII);
    /** Where format 2 kept its format: no client key was empty. */
    private static final byte[] FORMAT_2_KEY = new byte[0];
    /** A key's row before its value: expireAt, writeId, epoch. */
    private static final int KEY_HEADER_LENGTH = 3 * Long.BYTES;
    /** Format 3's key rows: expireAt, writeId. */
    private static final int FORMAT_3_HEADER_LENGTH = 2 * Long.BYTES;
    /** A version's row before its value: previous, expireAt. */
    private static final int HEADER_LENGTH = 2 * Long.BYTES;
    private static final int UPGRADE_BATCH = 4096;
    /**
     * A version's previous word carries this bit when its writer waited for it to be on disk (durability sync): an
     * acknowledged write no rollback to a cut takes back (kv-memory-node/README.md, "Coming back at the pool's cut").
     */
    static final long SYNC_VERSION = 1L << 62;

    /** Free bytes a disk that refused a write must have before the store is tried again ({@link #hasRoom}). */
    static final long ROOM_BYTES = 4L << 20;

    /** Receives a stored version: its key, epoch, write id, the previous version's (low 48 bits), expiry and value. */
    @FunctionalInterface
    interface VersionVisitor
    {
        void visit(byte[] key, long epoch, long writeId, long previous, long expireAt, byte[] value);
    }

    /** Receives a stored version's row without its value, for the sweep that drops versions. */
    @FunctionalInterface
    interface VersionRowVisitor
    {
        void visit(byte[] key, long epoch, long writeId, long previous, long expireAt);
    }

    /** Receives a stored key, its expiry time, its write id, its epoch and its value. */
    @FunctionalInterface
    interface StoredKeyVisitor
    {
        void visit(byte[] key, long expireAt, long writeId, long epoch, byte[] value);
    }

    private final Path path;
    private final DBOptions options;
    private final ColumnFamilyOptions keyOptions;
    private final WriteOptions syncWrites;
    private final WriteOptions bufferedWrites;
    /** Replaced by {@link #reopen} after a failed write: RocksDB refuses every write on that handle from then on. */
    private RocksDB db;
    private List<ColumnFamilyHandle> families;
    private ColumnFamilyHandle keys;
    private ColumnFamilyHandle versions;
    /** The versions' pass under way ({@link #startVersionPass}), or null; closed before the store is. */
    private RocksIterator pass;
    private final ByteBuffer passHeader = ByteBuffer.allocateDirect(HEADER_LENGTH);
    /** A write or fsync failed (a full or failing disk): the next one opens the store again first. */
    private boolean broken;
    private boolean closed;
    private final boolean restored;
    private final long upgradedKeys;
    private final VersionLog log;

    private KeyStore(final Path path, final DBOptions options, final ColumnFamilyOptions keyOptions,
        final RocksDB db, final List<ColumnFamilyHandle> families, final boolean restored, final long upgradedKeys,
        final VersionLog log)
    {
        this.path = path;
        this.log = log;
        this.options = options;
        this.keyOptions = keyOptions;
        this.db = db;
        this.families = families;
        this.keys = families.get(0);
        this.versions = families.get(2);
        this.restored = restored;
        this.upgradedKeys = upgradedKeys;
        this.syncWrites = new WriteOptions().setSync(true);
        this.bufferedWrites = new WriteOptions();
    }

    /**
     * Open the node's key store, made when the directory holds none, upgraded when it is of format 2.
     *
     * @param nodeId  the memory node opening it: a directory of another node is refused.
     * @param cluster the cluster's fingerprint ({@link #fingerprint}), or null when unknown: a directory of another
     *                cluster is refused.
     * @throws IllegalStateException naming the directory and the way out when it cannot be opened (another process
     *                               has it open, no space, corrupt files) or is another node's or cluster's.
     */
    static KeyStore open(final Path path, final long nodeId, final byte[] cluster)
    {
        return open(path, nodeId, cluster, VersionLog.SEGMENT_BYTES_DEFAULT);
    }

    /**
     * As {@link #open(Path, long, byte[])}.
     *
     * @param segmentBytes bytes a segment of the version log grows to before another is opened.
     */
    static KeyStore open(final Path path, final long nodeId, final byte[] cluster, final int segmentBytes)
    {
        // a memtable that is a vector, not a skip list: the node only writes keys while it serves and reads them
        // back only at its start, and a skip list's insert cost 2.3 us of the request thread a key here
        // (a vector's 0.2 us; docs/BENCHMARKS.md, "Durability")
        final DBOptions options = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)
            .setAllowConcurrentMemtableWrite(false);
        final ColumnFamilyOptions keyOptions = new ColumnFamilyOptions().setMemTableConfig(new VectorMemTableConfig());
        final List<ColumnFamilyHandle> families = new ArrayList<>();
        RocksDB db = null;
        try
        {
            Files.createDirectories(path);
            db = RocksDB.open(options, path.toString(), descriptors(keyOptions), families);
            final ColumnFamilyHandle node = families.get(1);
            final byte[] format = db.get(node, FORMAT_KEY);
            final boolean restored;
            long upgraded = 0;
            if (format != null)
            {
                checkOwner(path, db, node, format, nodeId, cluster);
                if (formatOf(format) == 3)
                {
                    // the versions' column family was made as the store opened: each key's row gets its epoch
                    upgraded = upgradeFormat3(path, db, families.get(0), node);
                }
                else if (formatOf(format) == 4)
                {
                    // its versions' rows read as versions carried out of the log: nothing to rewrite
                    db.put(node, FORMAT_KEY, ByteBuffer.allocate(Integer.BYTES).putInt(FORMAT).array());
                }
                restored = true;
            }
            else
            {
                final byte[] format2 = db.get(families.get(0), FORMAT_2_KEY);
                if (format2 == null && holdsAnyKey(db, families.get(0)))
                {
                    throw new IllegalStateException("the key store in " + path + " holds keys of format 1 (values " +
                        "with no expiry), and this node reads format " + FORMAT + ": move it away, or start a node " +
                        "of its version");
                }
                if (format2 != null)
                {
                    upgraded = upgradeFormat2(path, db, families.get(0), node);
                }
                restored = format2 != null;
                claim(db, node, nodeId, cluster);
            }
            final VersionLog log = VersionLog.open(path, segmentBytes);
            return new KeyStore(path, options, keyOptions, db, families, restored, upgraded, log);
        }
        catch (final IllegalStateException ex)
        {
            closeQuietly(db, families, options, keyOptions);
            throw ex;
        }
        catch (final RocksDBException | java.io.IOException ex)
        {
            closeQuietly(db, families, options, keyOptions);
            throw new IllegalStateException("cannot open the memory node's key store in " + path + ": " +
                ex.getMessage() + " (another process may have it open; if its files are damaged, move the " +
                "directory away and start the node empty: with other copies of its keys it is refilled from them)",
                ex);
        }
    }

    private static List<ColumnFamilyDescriptor> descriptors(final ColumnFamilyOptions keyOptions)
    {
        return List.of(
            new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, keyOptions),
            new ColumnFamilyDescriptor(NODE_FAMILY.getBytes(StandardCharsets.US_ASCII)),
            new ColumnFamilyDescriptor(VERSIONS_FAMILY.getBytes(StandardCharsets.US_ASCII), keyOptions));
    }

    /**
     * Open the store again after a write or fsync failed: RocksDB keeps a handle's write error for good (a full disk's
     * "No space left on device" refuses every later write), while a store opened again takes writes once the disk
     * has room, holding every write that succeeded before.
     *
     * @throws IllegalStateException naming the directory when it cannot be opened now; tried again at the next write.
     */
    private void reopen()
    {
        endVersionPass();
        if (db != null)
        {
            families.forEach(ColumnFamilyHandle::close);
            db.close();
            db = null;
        }
        final List<ColumnFamilyHandle> opened = new ArrayList<>();
        try
        {
            db = RocksDB.open(options, path.toString(), descriptors(keyOptions), opened);
        }
        catch (final RocksDBException ex)
        {
            opened.forEach(ColumnFamilyHandle::close);
            throw new IllegalStateException("cannot open the key store in " + path + " again after a failed write: " +
                ex.getMessage() + " (free space there, or move --data-dir to a larger disk)", ex);
        }
        families = opened;
        keys = opened.get(0);
        versions = opened.get(2);
        broken = false;
    }

    /**
     * @return whether the store's file system has {@link #ROOM_BYTES} free for a new try after a failed write: a try
     * of a store opened again on a disk still full can succeed for a while on what RocksDB frees as it opens (its
     * log made a table), and fail again.
     */
    boolean hasRoom()
    {
        try
        {
            return Files.getFileStore(path).getUsableSpace() >= ROOM_BYTES;
        }
        catch (final java.io.IOException ex)
        {
            return true;
        }
    }

    /** @return whether the last write or fsync failed, and no later one succeeded yet. */
    boolean broken()
    {
        return broken;
    }

    /**
     * @return 16 bytes that name a cluster without giving its secret away: a directory records it, and a node of
     * another cluster is refused it.
     */
    static byte[] fingerprint(final byte[] secret)
    {
        try
        {
            final javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
            mac.init(new javax.crypto.spec.SecretKeySpec(secret, "HmacSHA256"));
            return Arrays.copyOf(mac.doFinal("dkv memory node data directory".getBytes(StandardCharsets.US_ASCII)),
                16);
        }
        catch (final java.security.GeneralSecurityException ex)
        {
            throw new IllegalStateException("cannot fingerprint the cluster secret: " + ex.getMessage(), ex);
        }
    }

    private static void checkOwner(final Path path, final RocksDB db, final ColumnFamilyHandle node,
        final byte[] format, final long nodeId, final byte[] cluster) throws RocksDBException
    {
        if (formatOf(format) != FORMAT && formatOf(format) != 4 && formatOf(format) != 3)
        {
            throw new IllegalStateException("the key store in " + path + " is of format " +
                (format.length == Integer.BYTES ? Integer.toString(ByteBuffer.wrap(format).getInt()) :
                    Arrays.toString(format)) + ", and this node reads format " + FORMAT +
                " (and upgrades formats 3 and 4): start a node of its version on it");
        }
        final byte[] owner = db.get(node, NODE_KEY);
        final long ownerId = owner == null || owner.length != Long.BYTES ? 0 : ByteBuffer.wrap(owner).getLong();
        if (ownerId != nodeId)
        {
            throw new IllegalStateException("the data directory " + path + " holds memory node " + ownerId +
                "'s keys, not node " + nodeId + "'s: start node " + ownerId + " on it, or give node " + nodeId +
                " a directory of its own (an empty one: its keys then come from their other copies)");
        }
        final byte[] stored = db.get(node, CLUSTER_KEY);
        if (cluster != null && stored != null && !Arrays.equals(stored, cluster))
        {
            throw new IllegalStateException("the data directory " + path + " belongs to another cluster (made with " +
                "a cluster secret whose fingerprint is " + HexFormat.of().formatHex(stored) + ", not this one's " +
                HexFormat.of().formatHex(cluster) + "): start this node with that cluster's secret file, or on an " +
                "empty --data-dir");
        }
        if (cluster != null && stored == null)
        {
            db.put(node, CLUSTER_KEY, cluster);
        }
    }

    /** @return the format a directory says it is of, or -1 when the word is no format. */
    private static int formatOf(final byte[] format)
    {
        return format.length == Integer.BYTES ? ByteBuffer.wrap(format).getInt() : -1;
    }

    private static void claim(final RocksDB db, final ColumnFamilyHandle node, final long nodeId,
        final byte[] cluster) throws RocksDBException
    {
        try (WriteBatch batch = new WriteBatch(); WriteOptions sync = new WriteOptions().setSync(true))
        {
            batch.put(node, NODE_KEY, ByteBuffer.allocate(Long.BYTES).putLong(nodeId).array());
            if (cluster != null)
            {
                batch.put(node, CLUSTER_KEY, cluster);
            }
            // the format last: a directory whose claim was cut short is claimed again, never half-owned
            batch.put(node, FORMAT_KEY, ByteBuffer.allocate(Integer.BYTES).putInt(FORMAT).array());
            db.write(sync, batch);
        }
    }

    private static boolean holdsAnyKey(final RocksDB db, final ColumnFamilyHandle keys)
    {
        try (RocksIterator iterator = db.newIterator(keys))
        {
            iterator.seekToFirst();
            return iterator.isValid();
        }
    }

    /** Give each key of a format 2 store a write id of its own, in batches. @return keys upgraded. */
    private static long upgradeFormat2(final Path path, final RocksDB db, final ColumnFamilyHandle keys,
        final ColumnFamilyHandle node) throws RocksDBException
    {
        final long upgraded = rewriteRows(db, keys, node, (key, stored) -> key.length == 0 ? null :
            ByteBuffer.allocate(KEY_HEADER_LENGTH + stored.length - Long.BYTES)
                .putLong(ByteBuffer.wrap(stored).getLong()).putLong(KvBlockLayout.drawWriteId())
                .putLong(KvBlockLayout.NO_EPOCH)
                .put(stored, Long.BYTES, stored.length - Long.BYTES).array(),
            batch -> batch.delete(keys, FORMAT_2_KEY));
        System.getLogger(KeyStore.class.getName()).log(System.Logger.Level.INFO, "upgraded the key store in " + path +
            " from format 2 to " + FORMAT + ": " + upgraded + " keys, each given a write id");
        return upgraded;
    }

    /** Give each key of a format 3 store its epoch (0: written before epochs were kept), in batches. */
    private static long upgradeFormat3(final Path path, final RocksDB db, final ColumnFamilyHandle keys,
        final ColumnFamilyHandle node) throws RocksDBException
    {
        final long upgraded = rewriteRows(db, keys, node, (key, stored) ->
            ByteBuffer.allocate(KEY_HEADER_LENGTH + stored.length - FORMAT_3_HEADER_LENGTH)
                .put(stored, 0, FORMAT_3_HEADER_LENGTH).putLong(KvBlockLayout.NO_EPOCH)
                .put(stored, FORMAT_3_HEADER_LENGTH, stored.length - FORMAT_3_HEADER_LENGTH).array(),
            batch -> batch.put(node, FORMAT_KEY, ByteBuffer.allocate(Integer.BYTES).putInt(FORMAT).array()));
        System.getLogger(KeyStore.class.getName()).log(System.Logger.Level.INFO, "upgraded the key store in " + path +
            " from format 3 to " + FORMAT + ": " + upgraded + " keys, each of epoch 0; key versions kept from now on");
        return upgraded;
    }

    /** A key's row in an older format as this one writes it, or null to leave it as it is. */
    @FunctionalInterface
    private interface RowRewrite
    {
        byte[] rewrite(byte[] key, byte[] stored);
    }

    /** What the last batch of an upgrade adds: the mark that the directory is of the new format. */
    @FunctionalInterface
    private interface UpgradeEnd
    {
        void addTo(WriteBatch batch) throws RocksDBException;
    }

    /**
     * Rewrite every key's row in batches of {@link #UPGRADE_BATCH}, each fsynced with how far it got, so that an
     * upgrade cut short (a crash, a full disk) goes on after the last row it rewrote rather than reading a rewritten
     * row as an old one; the last batch marks the directory upgraded.
     *
     * @return rows rewritten by this call.
     */
    private static long rewriteRows(final RocksDB db, final ColumnFamilyHandle keys, final ColumnFamilyHandle node,
        final RowRewrite rewrite, final UpgradeEnd end) throws RocksDBException
    {
        long rewritten = 0;
        final byte[] from = db.get(node, UPGRADE_PROGRESS_KEY);
        try (WriteOptions sync = new WriteOptions().setSync(true); RocksIterator iterator = db.newIterator(keys))
        {
            WriteBatch batch = new WriteBatch();
            try
            {
                if (from == null)
                {
                    iterator.seekToFirst();
                }
                else
                {
                    iterator.seek(from);
                    if (iterator.isValid() && Arrays.equals(iterator.key(), from))
                    {
                        iterator.next();
                    }
                }
                for (; iterator.isValid(); iterator.next())
                {
                    final byte[] key = iterator.key();
                    final byte[] row = rewrite.rewrite(key, iterator.value());
                    if (row == null)
                    {
                        continue;
                    }
                    batch.put(keys, key, row);
                    if (++rewritten % UPGRADE_BATCH == 0)
                    {
                        batch.put(node, UPGRADE_PROGRESS_KEY, key);
                        db.write(sync, batch);
                        batch.close();
                        batch = new WriteBatch();
                    }
                }
                batch.delete(node, UPGRADE_PROGRESS_KEY);
                end.addTo(batch);
                db.write(sync, batch);
            }
            finally
            {
                batch.close();
            }
        }
        return rewritten;
    }

    private static void closeQuietly(final RocksDB db, final List<ColumnFamilyHandle> families,
        final DBOptions options, final ColumnFamilyOptions keyOptions)
    {
        families.forEach(ColumnFamilyHandle::close);
        if (db != null)
        {
            db.close();
        }
        options.close();
        keyOptions.close();
    }

    /** Add the key's state to {@code batch}: its value, expiry time, write id and the write's epoch. */
    void put(final WriteBatch batch, final byte[] key, final long expireAt, final long writeId, final long epoch,
        final byte[] value) throws RocksDBException
    {
        batch.put(keys, key, ByteBuffer.allocate(KEY_HEADER_LENGTH + value.length).putLong(expireAt).putLong(writeId)
            .putLong(epoch).put(value).array());
    }

    /**
     * Add a version of the key to the version log: what its writer's notice named, written before this store's next
     * write and on disk with its next fsync.
     *
     * @param previous the low 48 bits of the write id of the version it replaced, 0 when none, with
     *                 {@link #SYNC_VERSION} where its writer waits for the disk.
     * @throws IllegalStateException naming the directory when the disk refuses it.
     */
    void appendVersion(final byte[] key, final long epoch, final long writeId, final long previous,
        final long expireAt, final byte[] value)
    {
        try
        {
            log.append(key, epoch, writeId, previous, expireAt, value);
        }
        catch (final java.io.UncheckedIOException ex)
        {
            broken = true;
            throw new IllegalStateException(ex.getMessage(), ex);
        }
    }

    /**
     * Add a version of the key to {@code batch}, as a row of the store: one the sweep carries out of a segment of the
     * version log it drops where nothing later in the log stands for it, kept until a newer row is at or below the
     * cluster's durable epoch ({@link #dropVersion}).
     *
     * @param previous the low 48 bits of the write id of the version it replaced, 0 when none.
     */
    void putVersion(final WriteBatch batch, final byte[] key, final long epoch, final long writeId,
        final long previous, final long expireAt, final byte[] value) throws RocksDBException
    {
        batch.put(versions, versionKey(key, epoch, writeId),
            ByteBuffer.allocate(HEADER_LENGTH + value.length).putLong(previous).putLong(expireAt).put(value).array());
    }

    /** Add the deletion of one version to {@code batch}: a newer one of the key is at or below the durable epoch. */
    void dropVersion(final WriteBatch batch, final byte[] key, final long epoch, final long writeId)
        throws RocksDBException
    {
        batch.delete(versions, versionKey(key, epoch, writeId));
    }

    private static byte[] versionKey(final byte[] key, final long epoch, final long writeId)
    {
        return ByteBuffer.allocate(Short.BYTES + key.length + VERSION_SUFFIX).putShort((short)key.length).put(key)
            .putLong(epoch).putLong(writeId).array();
    }

    /**
     * Hand every version kept to {@code visitor}: the rows carried out of the log (key after key, each key's in epoch
     * order), then the log's (in the order appended), none a rollback voided.
     */
    void forEachVersion(final VersionVisitor visitor)
    {
        forEachVersionRow(visitor);
        log.forEach(visitor);
    }

    /** @return the version log beside the store, for the sweep and a rollback to read (its one writer's thread). */
    VersionLog versionLog()
    {
        return log;
    }

    /** Hand the versions of {@code key} that are rows of the store (carried out of the log) to {@code visitor}. */
    void forEachVersionRowOf(final byte[] key, final VersionVisitor visitor)
    {
        final byte[] prefix = ByteBuffer.allocate(Short.BYTES + key.length).putShort((short)key.length).put(key)
            .array();
        try (RocksIterator iterator = db.newIterator(versions))
        {
            for (iterator.seek(prefix); iterator.isValid(); iterator.next())
            {
                final byte[] row = iterator.key();
                if (row.length != prefix.length + VERSION_SUFFIX ||
                    !Arrays.equals(row, 0, prefix.length, prefix, 0, prefix.length))
                {
                    return;
                }
                final ByteBuffer at = ByteBuffer.wrap(row, prefix.length, VERSION_SUFFIX);
                final byte[] stored = iterator.value();
                final ByteBuffer header = ByteBuffer.wrap(stored);
                visitor.visit(key, at.getLong(), at.getLong(), header.getLong(), header.getLong(),
                    Arrays.copyOfRange(stored, HEADER_LENGTH, stored.length));
            }
        }
    }

    /** Hand every version that is a row of the store (carried out of the log) to {@code visitor}, in row order. */
    void forEachVersionRow(final VersionVisitor visitor)
    {
        try (RocksIterator iterator = db.newIterator(versions))
        {
            for (iterator.seekToFirst(); iterator.isValid(); iterator.next())
            {
                final ByteBuffer row = ByteBuffer.wrap(iterator.key());
                final byte[] key = new byte[row.getShort() & 0xffff];
                row.get(key);
                final long epoch = row.getLong();
                final long writeId = row.getLong();
                final byte[] stored = iterator.value();
                final ByteBuffer header = ByteBuffer.wrap(stored);
                visitor.visit(key, epoch, writeId, header.getLong(), header.getLong(),
                    Arrays.copyOfRange(stored, HEADER_LENGTH, stored.length));
            }
        }
    }

    /** Begin a pass over every version, in row order, read a slice at a time ({@link #nextVersions}). */
    void startVersionPass()
    {
        endVersionPass();
        pass = db.newIterator(versions);
        pass.seekToFirst();
    }

    /**
     * Hand the next versions of the pass, up to {@code limit}, to {@code visitor}, values left out.
     *
     * @return versions handed over; fewer than {@code limit} when the pass is over (or was ended: the store opened
     * again).
     */
    int nextVersions(final int limit, final VersionRowVisitor visitor)
    {
        if (pass == null)
        {
            return 0;
        }
        int rows = 0;
        for (; rows < limit && pass.isValid(); pass.next())
        {
            final ByteBuffer row = ByteBuffer.wrap(pass.key());
            final byte[] key = new byte[row.getShort() & 0xffff];
            row.get(key);
            passHeader.clear();
            pass.value(passHeader);
            visitor.visit(key, row.getLong(), row.getLong(), passHeader.getLong(0), passHeader.getLong(Long.BYTES));
            rows++;
        }
        return rows;
    }

    /** End the pass under way, if any. */
    void endVersionPass()
    {
        if (pass != null)
        {
            pass.close();
            pass = null;
        }
    }

    /** Add the key's deletion to {@code batch}. */
    void delete(final WriteBatch batch, final byte[] key) throws RocksDBException
    {
        batch.delete(keys, key);
    }

    /**
     * @param sync true: return once the batch is on disk (fsync), as durability sync asks.
     */
    void write(final WriteBatch batch, final boolean sync)
    {
        if (broken)
        {
            reopen();
        }
        // the versions first: a key's row is never on disk before the version its rollback would need
        writeLog(sync);
        try
        {
            db.write(sync ? syncWrites : bufferedWrites, batch);
        }
        catch (final RocksDBException ex)
        {
            broken = true;
            throw new IllegalStateException("cannot write to the key store in " + path + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * Keep the node's durable epoch, written without an fsync: on disk with the log's next, so what a restart reads is
     * at most the durable epoch then.
     */
    void writeDurableEpoch(final long epoch)
    {
        // every version the epoch counts on is on disk before the epoch is even written
        writeLog(true);
        try (WriteBatch batch = new WriteBatch())
        {
            putDurableEpoch(batch, epoch);
            write(batch, false);
        }
        catch (final RocksDBException ex)
        {
            throw new IllegalStateException("cannot write to the key store in " + path + ": " + ex.getMessage(), ex);
        }
    }

    /** Add the node's durable epoch to {@code batch}, for a batch written with an fsync that makes it true. */
    void putDurableEpoch(final WriteBatch batch, final long epoch) throws RocksDBException
    {
        batch.put(families.get(1), DURABLE_KEY, ByteBuffer.allocate(Long.BYTES).putLong(epoch).array());
    }

    /**
     * Keep the cluster's durable epoch a pass of the version sweep drops by, written without an fsync before the
     * pass's deletes, so that the log never holds a delete without the epoch that allowed it.
     */
    void writeClusterDurableEpoch(final long epoch)
    {
        try (WriteBatch batch = new WriteBatch())
        {
            batch.put(families.get(1), CLUSTER_DURABLE_KEY, ByteBuffer.allocate(Long.BYTES).putLong(epoch).array());
            write(batch, false);
        }
        catch (final RocksDBException ex)
        {
            throw new IllegalStateException("cannot write to the key store in " + path + ": " + ex.getMessage(), ex);
        }
    }

    /** @return the cluster's durable epoch the store's versions were last dropped by, or 0 when never. */
    long clusterDurableEpoch()
    {
        return readEpoch(CLUSTER_DURABLE_KEY);
    }

    /** @return the durable epoch the store kept last, or 0 when it kept none. */
    long durableEpoch()
    {
        return readEpoch(DURABLE_KEY);
    }

    private long readEpoch(final byte[] name)
    {
        try
        {
            final byte[] kept = db.get(families.get(1), name);
            return kept == null ? 0 : ByteBuffer.wrap(kept).getLong();
        }
        catch (final RocksDBException ex)
        {
            throw new IllegalStateException("cannot read the key store in " + path + ": " + ex.getMessage(), ex);
        }
    }

    /** Put what was written without an fsync on disk: the write-ahead log's fsync, as appendfsync everysec's. */
    void syncWal()
    {
        if (broken)
        {
            reopen();
        }
        writeLog(true);
        try
        {
            db.syncWal();
        }
        catch (final RocksDBException ex)
        {
            broken = true;
            throw new IllegalStateException("cannot fsync the key store's log in " + path + ": " + ex.getMessage(),
                ex);
        }
    }

    /**
     * Void every version in the log above {@code cut} (a rollback to it is done), on the disk when this returns.
     *
     * @throws IllegalStateException naming the directory when the disk refuses it.
     */
    void voidVersionsAbove(final long cut)
    {
        try
        {
            log.appendCut(cut);
        }
        catch (final java.io.UncheckedIOException ex)
        {
            throw new IllegalStateException(ex.getMessage(), ex);
        }
    }

    /** Write what the version log buffered, and force it when {@code force}. */
    private void writeLog(final boolean force)
    {
        try
        {
            if (force)
            {
                log.sync();
            }
            else
            {
                log.flush();
            }
        }
        catch (final java.io.UncheckedIOException ex)
        {
            broken = true;
            throw new IllegalStateException(ex.getMessage(), ex);
        }
    }

    /** Hand every stored key, with its expiry time, write id, epoch and value, to {@code visitor}, in key order. */
    void forEach(final StoredKeyVisitor visitor)
    {
        try (RocksIterator iterator = db.newIterator(keys))
        {
            for (iterator.seekToFirst(); iterator.isValid(); iterator.next())
            {
                final byte[] stored = iterator.value();
                final ByteBuffer header = ByteBuffer.wrap(stored);
                visitor.visit(iterator.key(), header.getLong(), header.getLong(), header.getLong(),
                    Arrays.copyOfRange(stored, KEY_HEADER_LENGTH, stored.length));
            }
        }
    }

    /** @return true when the directory held this node's keys before (its memory comes back from it). */
    boolean restored()
    {
        return restored;
    }

    /** @return keys of a format 2 store given write ids when it was opened. */
    long upgradedKeys()
    {
        return upgradedKeys;
    }

    Path path()
    {
        return path;
    }

    public void close()
    {
        if (closed)
        {
            // a node closed twice (a test's failure path): RocksDB aborts the process on a closed handle
            return;
        }
        closed = true;
        endVersionPass();
        try
        {
            log.close();
        }
        catch (final RuntimeException ex)
        {
            System.getLogger(KeyStore.class.getName()).log(System.Logger.Level.ERROR,
                "cannot fsync the version log in " + path + " at close: " + ex.getMessage());
        }
        if (db == null)
        {
            syncWrites.close();
            bufferedWrites.close();
            options.close();
            keyOptions.close();
            return;
        }
        try
        {
            // a clean stop leaves nothing only in the operating system's buffers, whatever the fsync setting
            db.syncWal();
        }
        catch (final RocksDBException ex)
        {
            System.getLogger(KeyStore.class.getName()).log(System.Logger.Level.ERROR,
                "cannot fsync the key store's log in " + path + " at close: " + ex.getMessage());
        }
        families.forEach(ColumnFamilyHandle::close);
        db.close();
        syncWrites.close();
        bufferedWrites.close();
        options.close();
        keyOptions.close();
    }
}
