package io.dkv.load.check.store;

import io.dkv.checker.history.History;
import io.dkv.checker.history.HistoryJson;
import io.dkv.load.check.harness.CheckResult;
import io.dkv.load.check.harness.ResultDirectory;
import io.dkv.load.check.harness.Verdict;
import io.dkv.load.check.workload.BankWorkload;
import io.dkv.load.check.workload.InProcessCheck;
import io.dkv.load.check.workload.ListAppendWorkload;
import io.dkv.load.check.workload.RedisListAppendWorkload;
import io.dkv.load.check.workload.RegisterWorkload;
import io.dkv.load.check.workload.TxnListAppendWorkload;
import io.dkv.load.check.workload.Workload;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The harness catches stores that break their promises: the same workload, recording and checkers
 * as {@code dkv check}, against stores in this JVM, one correct and two deliberately faulty.
 */
class FaultyStoresTest
{
    private static final Duration RUN = Duration.ofMillis(1_500);
    private static final Duration BUDGET = Duration.ofSeconds(20);

    @TempDir
    Path results;

    @Test
    @Timeout(60)
    void aCorrectStoreIsJudgedLinearizable() throws Exception
    {
        final CheckResult result = check(new RegisterWorkload(4, 0.5, 0.25), new MapStore());

        assertEquals(Verdict.VALID, result.verdict(), result::text);
        assertTrue(result.failing().isEmpty(), result::text);
    }

    @Test
    @Timeout(60)
    void aStoreServingStaleReadsIsCaught() throws Exception
    {
        final CheckResult result = check(new RegisterWorkload(4, 0.5, 0.25), staleReads());

        assertEquals(Verdict.INVALID, result.verdict(), result::text);
        assertEquals(3, result.verdict().exitCode());
        assertFalse(result.failing().isEmpty(), "the witnesses are marked: " + result.text());
        // where the search got stuck, not the whole key's history of thousands
        assertTrue(result.failing().size() < 50, () -> result.failing().size() + " operations marked");
        assertTrue(Files.readString(results.resolve(ResultDirectory.TIMELINE)).contains("class=\"bad\""),
            "the timeline marks the failing operations");
    }

    @Test
    @Timeout(60)
    void aStoreLosingConcurrentUpdatesIsCaught() throws Exception
    {
        // mostly compare-and-sets on two keys, so two of them often meet in the window
        final CheckResult result =
            check(new RegisterWorkload(2, 0.3, 0.1), new FaultyStores.LostUpdates(new MapStore(), 200_000));

        assertEquals(Verdict.INVALID, result.verdict(), result::text);
    }

    @Test
    @Timeout(60)
    void listAppendsOnACorrectStoreAreValidAndStaleReadsOfListsAreCaught() throws Exception
    {
        final CheckResult valid = check(new ListAppendWorkload(4, 0.5), new MapStore());
        assertEquals(Verdict.VALID, valid.verdict(), valid::text);

        final CheckResult stale = check(new ListAppendWorkload(4, 0.5), staleReads());
        assertEquals(Verdict.INVALID, stale.verdict(), stale::text);
    }

    @Test
    @Timeout(60)
    void appendsLostByConcurrentUpdatesAreCaught() throws Exception
    {
        final CheckResult result =
            check(new ListAppendWorkload(2, 0.3), new FaultyStores.LostUpdates(new MapStore(), 200_000));

        assertEquals(Verdict.INVALID, result.verdict(), result::text);
        assertTrue(result.text().contains("lost-append"), result::text);
    }

    @Test
    @Timeout(60)
    void theResultDirectoryHoldsTheHistoryTheVerdictAndTheTimeline() throws Exception
    {
        final CheckResult result = check(new RegisterWorkload(4, 0.5, 0.25), staleReads());

        final History written = HistoryJson.read(results.resolve(ResultDirectory.HISTORY));
        assertTrue(written.operations().size() > 100, () -> written.operations().size() + " operations");
        assertTrue(Files.readString(results.resolve(ResultDirectory.VERDICT)).startsWith(result.verdict().name()));
        final String timeline = Files.readString(results.resolve(ResultDirectory.TIMELINE));
        assertTrue(timeline.startsWith("<!DOCTYPE html>") && timeline.contains("<svg"), timeline.substring(0, 200));
        assertEquals(written.operations().size(), timeline.split("<rect class=\"(ok|fail|info|bad)\"").length - 1);
    }

    @Test
    @Timeout(60)
    void transactionsOverSeveralListsOnACorrectStoreAreStrictlySerializable() throws Exception
    {
        final CheckResult result = check(new TxnListAppendWorkload(4), new MapStore());

        assertEquals(Verdict.VALID, result.verdict(), result::text);
    }

    @Test
    @Timeout(60)
    void aTransactionVisibleBeforeItIsWholeIsCaughtByBothCheckers() throws Exception
    {
        final CheckResult lists = check(new TxnListAppendWorkload(3),
            new FaultyStores.NonAtomicTxns(new MapStore(), 200_000));
        assertEquals(Verdict.INVALID, lists.verdict(), lists::text);

        final CheckResult bank = check(new BankWorkload(4), new FaultyStores.NonAtomicTxns(new MapStore(), 200_000));
        assertEquals(Verdict.INVALID, bank.verdict(), bank::text);
        assertTrue(bank.text().contains("snapshots not summing to 0"), bank::text);
    }

    @Test
    @Timeout(60)
    void transactionsThatSkipValidationAreCaughtByBothCheckers() throws Exception
    {
        final CheckResult lists = check(new TxnListAppendWorkload(3),
            new FaultyStores.UnvalidatedTxns(new MapStore(), 200_000));
        assertEquals(Verdict.INVALID, lists.verdict(), lists::text);

        final CheckResult bank = check(new BankWorkload(4), new FaultyStores.UnvalidatedTxns(new MapStore(), 200_000));
        assertEquals(Verdict.INVALID, bank.verdict(), bank::text);
    }

    @Test
    @Timeout(60)
    void listTransactionsOnRealListsAreValidOnACorrectStoreAndCaughtWhenNotAtomicOrUnvalidated() throws Exception
    {
        final CheckResult valid = check(new RedisListAppendWorkload(4), new MapStore());
        assertEquals(Verdict.VALID, valid.verdict(), valid::text);

        final CheckResult nonAtomic = check(new RedisListAppendWorkload(3),
            new FaultyStores.NonAtomicTxns(new MapStore(), 200_000));
        assertEquals(Verdict.INVALID, nonAtomic.verdict(), nonAtomic::text);

        final CheckResult unvalidated = check(new RedisListAppendWorkload(3),
            new FaultyStores.UnvalidatedTxns(new MapStore(), 200_000));
        assertEquals(Verdict.INVALID, unvalidated.verdict(), unvalidated::text);
    }

    @Test
    @Timeout(60)
    void aBankOnACorrectStoreNeitherMakesNorLosesMoney() throws Exception
    {
        final CheckResult result = check(new BankWorkload(4), new MapStore());

        assertEquals(Verdict.VALID, result.verdict(), result::text);
        assertTrue(result.text().contains(" snapshots, "), result::text);
    }

    /** @return a correct store behind a layer that serves stale reads now and then. */
    private static CheckedStore staleReads()
    {
        return new FaultyStores.StaleReads(new MapStore(), FaultyStores.STALE_READS_PER_REFRESH);
    }

    private CheckResult check(final Workload workload, final CheckedStore store) throws Exception
    {
        final History history = InProcessCheck.run(workload, store, 6, 3_000, RUN, 42);
        return ResultDirectory.checkAndWrite(results, "faulty store", workload.name(), history, List.of(), List.of(),
            BUDGET);
    }
}
