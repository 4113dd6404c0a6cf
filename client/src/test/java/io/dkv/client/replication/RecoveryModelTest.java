package io.dkv.client.replication;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Restarts from disk explored exhaustively ({@link RecoveryModel}): every copy of a key lost in any order, restarts in
 * any order, a writer crashing mid-write. Every interleaving is linearizable and every run ends with no client
 * waiting for ever; the same checker catches a refill that clears a key no replica serves, a restart marked
 * memory-lost although it loaded its disk, and a reader that settles a pending value on the replica it read alone.
 */
class RecoveryModelTest
{
    @ParameterizedTest(name = "replica crashes {0}, writer crashes {1}, reads {2}")
    @CsvSource({"1, 0, 1", "1, 1, 1", "2, 0, 1", "2, 1, 1", "2, 1, 2"})
    void everyLossAndRestartOrderIsLinearizableAndEnds(final int replicaCrashes, final int writerCrashes,
        final int reads)
    {
        final Explorer.Result result = Explorer.explore(new RecoveryModel(replicaCrashes, writerCrashes, reads,
            RecoveryModel.Variant.HEAD_LAST), true);
        System.out.println(result);
        assertTrue(result.holds(), result::toString);
        assertTrue(result.terminalStates() > 0, "nothing explored: " + result);
    }

    @Test
    void aRefillThatClearsAKeyNoReplicaServesLosesAcknowledgedWrites()
    {
        assertCaught(new RecoveryModel(2, 0, 2, RecoveryModel.Variant.CLEARS_ON_REFILL), "not linearizable");
    }

    @Test
    void aRestartMarkedMemoryLostLeavesEveryCopyJoiningForEver()
    {
        assertCaught(new RecoveryModel(2, 0, 1, RecoveryModel.Variant.NOT_RESTORED), "waits for ever");
    }

    /**
     * The client as built settles a block on each replica as its PERSIST lands, the head among them: a writer that
     * crashes after the head's and before the tail's leaves a value readers see on the head's disk only, and the tail,
     * serving last, brings back the older one. The head must settle last (issue 66: not built yet).
     */
    @Test
    void settlingTheHeadBeforeEveryReplicaHasTheWriteOnDiskLosesAReadValue()
    {
        assertCaught(new RecoveryModel(2, 1, 2, RecoveryModel.Variant.SETTLE_EVERYWHERE), "not linearizable");
    }

    /**
     * A refill that copies a pending block as settled without settling it on the other replicas first (the client
     * until its refill settled one as a reader does): a copy refilled from a pending head, lost with a third crash,
     * brings back an older value.
     */
    @Test
    void aRefillThatCopiesAPendingBlockAsSettledLosesItToAThirdCrash()
    {
        assertCaught(new RecoveryModel(3, 0, 2, RecoveryModel.Variant.REFILL_COPIES_PENDING), "not linearizable");
    }

    /**
     * A node that settles the block its index holds when any PERSIST lands (the node until it settled only the block
     * the PERSIST named): an older writer's PERSIST at the newer write's head settles it before the other replica has
     * it on disk.
     */
    @Test
    void aPersistThatSettlesANewerWritesBlockLosesItToAThirdCrash()
    {
        assertCaught(new RecoveryModel(3, 0, 2, RecoveryModel.Variant.SETTLES_NEWER), "not linearizable");
    }

    /** The design, as built, at the scope that catches both of those. */
    @Test
    void theDesignHoldsWhenEveryCopyIsLostThreeTimesOver()
    {
        final Explorer.Result result = Explorer.explore(new RecoveryModel(3, 0, 2, RecoveryModel.Variant.HEAD_LAST),
            true);
        System.out.println(result);
        assertTrue(result.holds(), result::toString);
    }

    /**
     * A writer that tells the head's node last no longer settles the head before the tail has the write on disk; but
     * a reader racing the write that settles the pending head there alone answers a value the tail, never settled,
     * loses when both copies are lost, the head first, with no writer crash at all.
     */
    @Test
    void tellingTheHeadLastIsNotEnoughWhileAReaderSettlesTheHeadAlone()
    {
        assertCaught(new RecoveryModel(2, 0, 2, RecoveryModel.Variant.HEAD_TOLD_LAST), "not linearizable");
    }

    @Test
    void aReaderThatSettlesThePendingHeadAloneLosesAReadValueToTwoCrashes()
    {
        assertCaught(new RecoveryModel(2, 1, 2, RecoveryModel.Variant.SETTLE_HEAD), "not linearizable");
    }

    private static void assertCaught(final RecoveryModel model, final String expected)
    {
        final Explorer.Result result = Explorer.explore(model, true);
        System.out.println(result);
        assertFalse(result.holds(), "not caught: " + result);
        assertTrue(result.counterexample().contains(expected), result::toString);
    }
}
