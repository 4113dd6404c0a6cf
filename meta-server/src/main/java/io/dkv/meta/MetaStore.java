package io.dkv.meta;

import io.dkv.raas.NodeRecord;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.meta.MemberRecord;
import io.dkv.raas.meta.MembershipRecord;
import io.dkv.raas.meta.MetaMessageReader;
import io.dkv.raas.meta.MetaMessageWriter;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;

import static io.dkv.raas.meta.MetaRpcDescriptor.TOKEN_LENGTH;

/**
 * The MetaServer's durable state in RocksDB: node records, the memory tier's membership, region
 * descriptors and the server's own settings that must survive a restart (DC key, shm device id). Records are
 * stored in their RPC encoding. Every write is synced to the WAL before it is acknowledged; lease
 * renewals are not written at all (a restarted server grants every node a fresh lease).
 *
 * <pre>
 *   'n' + node id (8 bytes, big-endian)   node record, then its token (absent when it has none)
 *   'r' + UTF-8 name                      region descriptor
 *   'c' + UTF-8 key                       a setting (8-byte big-endian value)
 *   'M'                                   the membership, whole (its epoch, replica count, phase and members
 *                                         with their placements)
 *   'm'                                   the membership as stores before placements kept it (epoch, replicas,
 *                                         count, then nodeId, state, incarnation per member): read when no 'M' is
 *                                         there, its members placed and no change running; removed by the next write
 *   'F'                                   the founders of a founded store ({@link Founders}): count, then their
 *                                         ids (8 bytes, big-endian, each); absent while it is not founded
 * </pre>
 *
 * <p>A change to a node and the membership change it causes are written in one batch, so a restart
 * never finds one without the other.
 */
final class MetaStore implements AutoCloseable
{
    private static final byte NODE = 'n';
    private static final byte REGION = 'r';
    private static final byte CONFIG = 'c';
    private static final byte[] MEMBERSHIP = {'M'};
    private static final byte[] MEMBERSHIP_UNPLACED = {'m'};
    private static final byte[] FOUNDERS = {'F'};

    static
    {
        RocksDB.loadLibrary();
    }

    private final Path path;
    private final Options options;
    private final WriteOptions syncWrites;
    private final RocksDB db;
    private final MetaMessageWriter writer = new MetaMessageWriter();
    private final MetaMessageReader reader = new MetaMessageReader();
    private final MemorySegment encoding = MemorySegment.ofArray(new byte[8192]);

    private MetaStore(final Path path, final Options options, final WriteOptions syncWrites, final RocksDB db)
    {
        this.path = path;
        this.options = options;
        this.syncWrites = syncWrites;
        this.db = db;
    }

    static MetaStore open(final Path path)
    {
        final Options options = new Options().setCreateIfMissing(true);
        final WriteOptions syncWrites = new WriteOptions().setSync(true);
        try
        {
            return new MetaStore(path, options, syncWrites, RocksDB.open(options, path.toString()));
        }
        catch (final RocksDBException ex)
        {
            syncWrites.close();
            options.close();
            throw new IllegalStateException("cannot open the MetaServer store at " + path + ": " + ex.getMessage(), ex);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // reading at start

    List<Member> nodes()
    {
        final List<Member> nodes = new ArrayList<>();
        scan(NODE, value ->
        {
            final NodeRecord node = reader.wrap(MemorySegment.ofArray(value), 0, value.length).getNode();
            nodes.add(new Member(node, reader.remaining() >= TOKEN_LENGTH ? reader.getToken() : null));
        });
        return nodes;
    }

    List<RemoteRegion> regions()
    {
        final List<RemoteRegion> regions = new ArrayList<>();
        scan(REGION, value -> regions.add(reader.wrap(MemorySegment.ofArray(value), 0, value.length).getRegion()));
        return regions;
    }

    private void scan(final byte prefix, final Consumer<byte[]> consumer)
    {
        try (RocksIterator iterator = db.newIterator())
        {
            for (iterator.seek(new byte[]{prefix}); iterator.isValid() && iterator.key()[0] == prefix; iterator.next())
            {
                consumer.accept(iterator.value());
            }
        }
    }

    /** @return the membership as last stored, or null when this store never held one (its first start). */
    MembershipRecord membership()
    {
        try
        {
            final byte[] value = db.get(MEMBERSHIP);
            if (value != null)
            {
                return reader.wrap(MemorySegment.ofArray(value), 0, value.length).getMembership();
            }
            final byte[] unplaced = db.get(MEMBERSHIP_UNPLACED);
            return unplaced == null ? null : unplacedMembership(unplaced);
        }
        catch (final RocksDBException ex)
        {
            throw failed("read the membership", ex);
        }
    }

    private MembershipRecord unplacedMembership(final byte[] value)
    {
        reader.wrap(MemorySegment.ofArray(value), 0, value.length);
        final long epoch = reader.getLong();
        final int replicas = reader.getInt();
        final int count = reader.getInt();
        final List<MemberRecord> members = new ArrayList<>(Math.max(0, count));
        for (int i = 0; i < count; i++)
        {
            final long nodeId = reader.getLong();
            final int state = reader.getInt();
            members.add(new MemberRecord(nodeId, state, reader.getLong()));
        }
        return new MembershipRecord(epoch, replicas, members);
    }

    /** @return the founders of the store, or null when it is not founded (or its store is from before founders). */
    long[] founders()
    {
        try
        {
            final byte[] value = db.get(FOUNDERS);
            if (value == null)
            {
                return null;
            }
            final ByteBuffer buffer = ByteBuffer.wrap(value);
            final long[] founders = new long[buffer.getInt()];
            for (int i = 0; i < founders.length; i++)
            {
                founders[i] = buffer.getLong();
            }
            return founders;
        }
        catch (final RocksDBException ex)
        {
            throw failed("read the founders", ex);
        }
    }

    /**
     * Keep that the store is founded. Written after the membership that founded it: a restart that finds the
     * membership without this judges it again and finds the store founded all the same.
     */
    void putFounders(final long[] founders)
    {
        final ByteBuffer value = ByteBuffer.allocate(4 + 8 * founders.length).putInt(founders.length);
        for (final long founder : founders)
        {
            value.putLong(founder);
        }
        write("store the founders", batch -> batch.put(FOUNDERS, value.array()));
    }

    /** @return the setting, or 0 when never stored. */
    long setting(final String key)
    {
        try
        {
            final byte[] value = db.get(key(CONFIG, key));
            return value == null ? 0 : ByteBuffer.wrap(value).getLong();
        }
        catch (final RocksDBException ex)
        {
            throw failed("read setting " + key, ex);
        }
    }

    void setting(final String key, final long value)
    {
        write("store setting " + key,
            batch -> batch.put(key(CONFIG, key), ByteBuffer.allocate(8).putLong(value).array()));
    }

    // ---------------------------------------------------------------------------------------------
    // writing

    /** Store a node and, in the same write, the membership it changed (null: it changed none). */
    void putNode(final NodeRecord node, final byte[] token, final MembershipRecord membership)
    {
        write("store node " + node.id(), batch ->
        {
            batch.put(nodeKey(node.id()), encode(node, token));
            putMembership(batch, membership);
        });
    }

    /** Remove a node and, in the same write, the regions that went with it and the membership it changed. */
    void removeNode(final long nodeId, final Collection<String> regionNames, final MembershipRecord membership)
    {
        write("remove node " + nodeId, batch ->
        {
            batch.delete(nodeKey(nodeId));
            for (final String name : regionNames)
            {
                batch.delete(key(REGION, name));
            }
            putMembership(batch, membership);
        });
    }

    void putMembership(final MembershipRecord membership)
    {
        write("store the membership of epoch " + membership.epoch(), batch -> putMembership(batch, membership));
    }

    private void putMembership(final WriteBatch batch, final MembershipRecord membership) throws RocksDBException
    {
        if (membership != null)
        {
            final int length = writer.wrap(encoding).putMembership(membership).position();
            batch.put(MEMBERSHIP, encoding.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE));
            batch.delete(MEMBERSHIP_UNPLACED);
        }
    }

    void putRegion(final RemoteRegion region)
    {
        write("store region '" + region.name() + "'", batch -> batch.put(key(REGION, region.name()), encode(region)));
    }

    void removeRegions(final Collection<String> names)
    {
        write("remove regions " + names, batch ->
        {
            for (final String name : names)
            {
                batch.delete(key(REGION, name));
            }
        });
    }

    /** Replace all records with these, in one write (a state transfer from the peer). */
    void replaceAll(final Collection<Member> nodes, final Collection<RemoteRegion> regions,
        final MembershipRecord membership)
    {
        final List<byte[]> stale = new ArrayList<>();
        try (RocksIterator iterator = db.newIterator())
        {
            for (iterator.seekToFirst(); iterator.isValid(); iterator.next())
            {
                final byte kind = iterator.key()[0];
                if (kind == NODE || kind == REGION)
                {
                    stale.add(iterator.key());
                }
            }
        }
        write("replace all records", batch ->
        {
            for (final byte[] key : stale)
            {
                batch.delete(key);
            }
            for (final Member member : nodes)
            {
                batch.put(nodeKey(member.node().id()), encode(member.node(), member.token()));
            }
            for (final RemoteRegion region : regions)
            {
                batch.put(key(REGION, region.name()), encode(region));
            }
            putMembership(batch, membership);
        });
    }

    private interface BatchWork
    {
        void fill(WriteBatch batch) throws RocksDBException;
    }

    private void write(final String what, final BatchWork work)
    {
        try (WriteBatch batch = new WriteBatch())
        {
            work.fill(batch);
            db.write(syncWrites, batch);
        }
        catch (final RocksDBException ex)
        {
            throw failed(what, ex);
        }
    }

    private IllegalStateException failed(final String what, final RocksDBException ex)
    {
        return new IllegalStateException("MetaServer store at " + path + " failed to " + what + ": " + ex.getMessage(),
            ex);
    }

    private byte[] encode(final NodeRecord node, final byte[] token)
    {
        writer.wrap(encoding).putNode(node);
        if (token != null)
        {
            writer.putToken(token);
        }
        final int length = writer.position();
        return encoding.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE);
    }

    private byte[] encode(final RemoteRegion region)
    {
        final int length = writer.wrap(encoding).putRegion(region).position();
        return encoding.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE);
    }

    private static byte[] nodeKey(final long nodeId)
    {
        return ByteBuffer.allocate(9).put(NODE).putLong(nodeId).array();
    }

    private static byte[] key(final byte prefix, final String name)
    {
        final byte[] text = name.getBytes(StandardCharsets.UTF_8);
        final byte[] key = new byte[text.length + 1];
        key[0] = prefix;
        System.arraycopy(text, 0, key, 1, text.length);
        return key;
    }

    public void close()
    {
        db.close();
        syncWrites.close();
        options.close();
    }
}
