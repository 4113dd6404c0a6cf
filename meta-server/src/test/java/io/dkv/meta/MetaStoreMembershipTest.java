package io.dkv.meta;

import io.dkv.raas.Membership;
import io.dkv.raas.meta.MemberRecord;
import io.dkv.raas.meta.MembershipRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The membership survives a restart with its phase and placements; a store written before placements were kept
 * reads back with every member placed and no change running.
 */
class MetaStoreMembershipTest
{
    @TempDir
    Path dir;

    @Test
    void aMembershipInAChangeReadsBackWithItsPhaseAndPlacements()
    {
        final MembershipRecord changing = new MembershipRecord(9, 2, List.of(
            new MemberRecord(101, Membership.LIVE, 3, Membership.PLACED_BEFORE),
            new MemberRecord(102, Membership.DOWN, 4, Membership.PLACED),
            new MemberRecord(103, Membership.LIVE, 5, Membership.PLACED_AFTER)), Membership.CLEANUP);
        try (MetaStore store = MetaStore.open(dir))
        {
            store.putMembership(changing);
        }
        try (MetaStore store = MetaStore.open(dir))
        {
            assertEquals(changing, store.membership());
        }
    }

    @Test
    void aMembershipStoredBeforePlacementsReadsBackPlacedAndSteady() throws Exception
    {
        final ByteBuffer old = ByteBuffer.allocate(16 + 2 * 20).order(ByteOrder.LITTLE_ENDIAN);
        old.putLong(6).putInt(2).putInt(2);
        old.putLong(101).putInt(Membership.LIVE).putLong(3);
        old.putLong(102).putInt(Membership.JOINING).putLong(4);
        try (Options options = new Options().setCreateIfMissing(true);
            RocksDB db = RocksDB.open(options, dir.toString()))
        {
            db.put(new byte[]{'m'}, old.array());
        }
        final MembershipRecord expected = new MembershipRecord(6, 2, List.of(
            new MemberRecord(101, Membership.LIVE, 3), new MemberRecord(102, Membership.JOINING, 4)));
        try (MetaStore store = MetaStore.open(dir))
        {
            assertEquals(expected, store.membership());
            store.putMembership(expected);
        }
        try (MetaStore store = MetaStore.open(dir))
        {
            assertEquals(expected, store.membership(), "written anew in the placed form");
        }
    }
}
