package io.dkv.meta;

import io.dkv.raas.Connection;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.meta.MemberRecord;
import io.dkv.raas.meta.MembershipRecord;
import io.dkv.raas.meta.MetaSlots;
import io.dkv.raas.meta.MetaTableDescriptor;
import io.dkv.raas.meta.MetaTableReader;
import io.dkv.verbs.PortAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static io.dkv.raas.meta.MetaTableDescriptor.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A one-sided reader never returns a record mixed from two writes: not while the writer rewrites
 * it as fast as it can, not when the writer stopped half-way, and not when a copy splices two
 * published writes at any byte. The same holds of the members block, sealed whole.
 */
class TornReadTest
{
    private static final long NODE_ID = 42;
    private static final long KEY_FACTOR = 0x9e3779b97f4a7c15L;
    private static final int SLOTS = 16;

    /** Every field of write number {@code n} says n, so a record mixed from two writes shows. */
    private static NodeRecord write(final long n)
    {
        return new NodeRecord(NODE_ID, (int)n, PortAddress.shm(n), (int)(n * 3), n * KEY_FACTOR, n, n * 5);
    }

    private static boolean isOneWrite(final NodeRecord record)
    {
        return record.equals(write(record.epoch()));
    }

    /** A table region on one driver, read through a connection of another. */
    private static final class Setup implements AutoCloseable
    {
        final StaticDirectory directory = new StaticDirectory();
        final Raas owner;
        final Raas reader;
        final RemoteRegion region;
        final MetaTables tables;
        final Connection connection;

        Setup(final String provider)
        {
            owner = RaasDriver.start(MetaTestSupport.nodeContext(provider, 1), directory);
            reader = RaasDriver.start(MetaTestSupport.nodeContext(provider, 2), directory);
            region = owner.malloc(owner.self().id(), regionLength(SLOTS, SLOTS), "tables");
            tables = new MetaTables(owner.localMemory(region), SLOTS, SLOTS, 1, 1);
            connection = reader.open(owner.self().id(), null);
            reader.lookup("tables");
        }

        MetaTableReader tableReader(final int tornRetries)
        {
            final MetaTableReader tableReader =
                new MetaTableReader(connection, region, reader.allocateBuffer(MetaTableReader.BUFFER_BYTES),
                tornRetries);
            tableReader.readHeader();
            return tableReader;
        }

        public void close()
        {
            reader.close();
            owner.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void readersNeverReturnAMixOfTwoWritesWhileTheWriterRewritesTheRecord(final String provider) throws Exception
    {
        try (Setup setup = new Setup(provider))
        {
            setup.tables.putNode(write(1));
            final MetaTableReader reader = setup.tableReader(MetaTableReader.TORN_RETRIES);
            final AtomicBoolean stop = new AtomicBoolean();
            final AtomicReference<Throwable> writerFailure = new AtomicReference<>();
            final Thread writer = new Thread(() ->
            {
                try
                {
                    for (long n = 2; !stop.get(); n++)
                    {
                        setup.tables.putNode(write(n));
                    }
                }
                catch (final Throwable ex)
                {
                    writerFailure.set(ex);
                }
            }, "table-writer");
            writer.start();

            // the same slot read raw, without the version and checksum checks: shows the writes really overlap the
            // READs
            final MemorySegment raw = setup.reader.allocateBuffer(NODE_SLOT_LENGTH);
            final long slotOffset = nodeSlotOffset(nodeHome(NODE_ID, SLOTS));
            long checkedReads = 0;
            long mixedReturned = 0;
            long rawMixes = 0;
            NodeRecord mixedExample = null;
            final long deadline = System.nanoTime() + 15_000_000_000L;
            try
            {
                while ((rawMixes == 0 || checkedReads < 5_000) && System.nanoTime() < deadline)
                {
                    final NodeRecord record = reader.node(NODE_ID);
                    checkedReads++;
                    if (!isOneWrite(record))
                    {
                        mixedReturned++;
                        mixedExample = record;
                    }
                    setup.connection.read(setup.region, slotOffset, raw, 0, NODE_SLOT_LENGTH);
                    if (!rawCopyIsOneWrite(raw))
                    {
                        rawMixes++;
                    }
                }
            }
            finally
            {
                stop.set(true);
                writer.join(10_000);
            }
            System.out.printf("%s: %d checked reads (%d torn copies read again), %d of as many raw reads mixed two " +
                "writes%n",
                provider, checkedReads, reader.tornReads(), rawMixes);
            assertNull(writerFailure.get());
            assertEquals(0, mixedReturned, "mixed records returned, e.g. " + mixedExample);
            assertTrue(rawMixes > 0, "no raw READ of " + checkedReads + " overlapped a write: the test proved nothing");
            assertTrue(checkedReads >= 5_000, "only " + checkedReads + " checked reads");
        }
    }

    private static boolean rawCopyIsOneWrite(final MemorySegment raw)
    {
        try
        {
            return isOneWrite(MetaSlots.decodeNode(raw, 0));
        }
        catch (final RaasException | IllegalArgumentException ex)
        {
            return false;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aSlotLeftHalfWrittenIsNeverReturnedAndItsFinishedWriteIs(final String provider)
    {
        try (Setup setup = new Setup(provider))
        {
            setup.tables.putNode(write(1));
            final MetaTableReader reader = setup.tableReader(200);
            assertEquals(write(1), reader.node(NODE_ID));

            // a writer stopped between making the version odd and publishing the new one
            final MemorySegment memory = setup.owner.localMemory(setup.region);
            final long base = nodeSlotOffset(nodeHome(NODE_ID, SLOTS));
            final long version = memory.get(LONG, base + VERSION_OFFSET);
            memory.set(LONG, base + VERSION_OFFSET, version + 1);
            memory.set(LONG, base + NODE_EPOCH_OFFSET, 2);

            final RaasException busy = assertThrows(RaasException.class, () -> reader.node(NODE_ID));
            assertTrue(busy.getMessage().contains("mid-write"), busy.getMessage());
            assertTrue(reader.tornReads() >= 200);

            setup.tables.putNode(write(2));
            assertEquals(write(2), reader.node(NODE_ID));
        }
    }

    @Test
    void aCopySplicingTwoPublishedWritesAtAnyByteIsJudgedTorn()
    {
        final int length = (int)regionLength(SLOTS, SLOTS);
        final MetaTables tables = new MetaTables(MemorySegment.ofArray(new byte[length]), SLOTS, SLOTS, 1, 1);
        final long nodeBase = nodeSlotOffset(nodeHome(NODE_ID, SLOTS));
        tables.putNode(write(1));
        final byte[] nodeBefore = tables.memory().asSlice(nodeBase, NODE_SLOT_LENGTH).toArray(ValueLayout.JAVA_BYTE);
        tables.putNode(write(2));
        final byte[] nodeAfter = tables.memory().asSlice(nodeBase, NODE_SLOT_LENGTH).toArray(ValueLayout.JAVA_BYTE);
        assertSplicesAreTorn(nodeBefore, nodeAfter, NODE_CHECKSUM_OFFSET);

        final RemoteRegion first = new RemoteRegion("spliced", 7, 1, 0x1000, 11, 4096, 3, 1);
        final RemoteRegion second = new RemoteRegion("spliced", 7, 2, 0x9000, 12, 8192, 3, 2);
        final long regionBase = regionSlotOffset(SLOTS, regionHome(nameHash("spliced".getBytes()), SLOTS));
        tables.putRegion(first);
        final byte[] regionBefore =
            tables.memory().asSlice(regionBase, REGION_SLOT_LENGTH).toArray(ValueLayout.JAVA_BYTE);
        tables.putRegion(second);
        final byte[] regionAfter =
            tables.memory().asSlice(regionBase, REGION_SLOT_LENGTH).toArray(ValueLayout.JAVA_BYTE);
        assertSplicesAreTorn(regionBefore, regionAfter, REGION_CHECKSUM_OFFSET);
    }

    private static MembershipRecord members(final long n)
    {
        return new MembershipRecord(n, (int)n, List.of(new MemberRecord(100 + n, Membership.LIVE, n * KEY_FACTOR),
            new MemberRecord(200 + n, Membership.DOWN, n)));
    }

    @Test
    void aMembersBlockSplicingTwoPublishedWritesAtAnyByteIsJudgedTorn()
    {
        final int length = (int)regionLength(SLOTS, SLOTS);
        final MetaTables tables = new MetaTables(MemorySegment.ofArray(new byte[length]), SLOTS, SLOTS, 1, 1);
        final long base = membersOffset(SLOTS, SLOTS);
        final int blockLength = membersLength(MEMBER_SLOTS);
        final int checksumOffset = membersChecksumOffset(MEMBER_SLOTS);
        tables.putMembership(members(1));
        final byte[] before = tables.memory().asSlice(base, blockLength).toArray(ValueLayout.JAVA_BYTE);
        tables.putMembership(members(2));
        final byte[] after = tables.memory().asSlice(base, blockLength).toArray(ValueLayout.JAVA_BYTE);
        assertTrue(isSealed(MemorySegment.ofArray(before), 0, checksumOffset));
        assertTrue(isSealed(MemorySegment.ofArray(after), 0, checksumOffset));
        for (int split = 1; split < checksumOffset + 8; split++)
        {
            for (final boolean olderFirst : new boolean[]{true, false})
            {
                final byte[] spliced = olderFirst ? after.clone() : before.clone();
                System.arraycopy(olderFirst ? before : after, 0, spliced, 0, split);
                assertTrue(!isSealed(MemorySegment.ofArray(spliced), 0, checksumOffset),
                    "bytes [0, " + split + ") of the " + (olderFirst ? "older" : "newer") +
                    " write, the rest of the other");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aMembersBlockLeftHalfWrittenIsNeverReturnedAndItsFinishedWriteIs(final String provider)
    {
        try (Setup setup = new Setup(provider))
        {
            final MetaTableReader reader = setup.tableReader(200);
            assertEquals(new MembershipRecord(0, 1, List.of()), reader.membership(), "none written yet");
            setup.tables.putMembership(members(1));
            assertEquals(members(1), reader.membership());

            // a writer stopped between making the version odd and publishing the new one
            final MemorySegment memory = setup.owner.localMemory(setup.region);
            final long base = membersOffset(SLOTS, SLOTS);
            memory.set(LONG, base + VERSION_OFFSET, memory.get(LONG, base + VERSION_OFFSET) + 1);
            memory.set(INT, base + MEMBERS_REPLICAS_OFFSET, 2);

            final RaasException busy = assertThrows(RaasException.class, reader::membership);
            assertTrue(busy.getMessage().contains("mid-write"), busy.getMessage());
            assertTrue(reader.tornReads() >= 200);

            setup.tables.putMembership(members(2));
            assertEquals(members(2), reader.membership());
        }
    }

    private static void assertSplicesAreTorn(final byte[] before, final byte[] after, final int checksumOffset)
    {
        assertEquals(STATE_LIVE, MetaTableDescriptor.readState(MemorySegment.ofArray(before), 0, checksumOffset));
        assertEquals(STATE_LIVE, MetaTableDescriptor.readState(MemorySegment.ofArray(after), 0, checksumOffset));
        for (int split = 1; split < checksumOffset + 8; split++)
        {
            for (final boolean olderFirst : new boolean[]{true, false})
            {
                final byte[] spliced = olderFirst ? after.clone() : before.clone();
                System.arraycopy(olderFirst ? before : after, 0, spliced, 0, split);
                assertEquals(TORN, MetaTableDescriptor.readState(MemorySegment.ofArray(spliced), 0, checksumOffset),
                    "bytes [0, " + split + ") of the " + (olderFirst ? "older" : "newer") +
                    " write, the rest of the other");
            }
        }
    }
}
