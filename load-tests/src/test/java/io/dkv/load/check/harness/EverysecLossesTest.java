package io.dkv.load.check.harness;

import io.dkv.checker.history.History;
import io.dkv.checker.history.Op;
import io.dkv.checker.history.OpType;
import io.dkv.load.check.nemesis.NemesisEvent;
import io.dkv.load.check.workload.RegisterWorkload;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Under appendfsync everysec a crash of every copy may lose what was acknowledged within the fsync interval before
 * it: the harness takes those operations as of unknown outcome, counts them, and holds everything else to
 * linearizability. A write acknowledged before the window, or any under a fault that loses no copy (a clean stop),
 * stays one the checkers require; with no window the lost write is found.
 */
class EverysecLossesTest
{
    @TempDir
    Path dir;

    /**
     * Two writes of r1, the second acknowledged at 40; every copy lost at 100, back at 200; then reads of the first's
     * value, acknowledged after the restart: never excused.
     */
    private History lostSecondWrite() throws Exception
    {
        final Path file = dir.resolve("client-0.jsonl");
        Files.writeString(file, """
            {"index":0,"type":"invoke","process":1,"f":"write","key":"r1","value":1,"time":10}
            {"index":1,"type":"ok","process":1,"f":"write","key":"r1","value":1,"time":20}
            {"index":2,"type":"invoke","process":1,"f":"write","key":"r1","value":2,"time":30}
            {"index":3,"type":"ok","process":1,"f":"write","key":"r1","value":2,"time":40}
            {"index":4,"type":"invoke","process":2,"f":"read","key":"r1","value":null,"time":300}
            {"index":5,"type":"ok","process":2,"f":"read","key":"r1","value":1,"time":310}
            {"index":6,"type":"invoke","process":1,"f":"read","key":"r1","value":null,"time":320}
            {"index":7,"type":"ok","process":1,"f":"read","key":"r1","value":1,"time":330}
            """, StandardCharsets.UTF_8);
        return HistoryMerger.merge(List.of(file));
    }

    private static Verdict check(final History history)
    {
        return Checkers.check(RegisterWorkload.NAME, history, Duration.ofSeconds(10)).verdict();
    }

    @Test
    void aWriteAcknowledgedWithinTheWindowOfACrashOfEveryCopyMayBeLostAndIsCounted() throws Exception
    {
        final History recorded = lostSecondWrite();
        assertEquals(Verdict.INVALID, check(recorded), "as recorded, the second write was lost");

        final List<NemesisEvent> crash =
            List.of(new NemesisEvent("kill-all-memory", "memory nodes", 100, 200, "", 100, 101));
        final EverysecLosses.Adjusted adjusted = EverysecLosses.apply(recorded, crash, 70);
        assertEquals(1, adjusted.excused(), "the write acknowledged at 40, within 70 of the crash at 100");
        assertEquals(Verdict.VALID, check(adjusted.history()));
        final Op excused = adjusted.history().ops().get(3);
        assertEquals(OpType.INFO, excused.type());
        assertEquals(EverysecLosses.EXCUSED, excused.error());
        assertEquals(3, adjusted.history().ops().get(6).process(), "process 1 goes on as a process of its own");

        assertEquals(0, EverysecLosses.apply(recorded, crash, 0).excused(), "no window: nothing excused");
        assertEquals(Verdict.INVALID, check(EverysecLosses.apply(recorded, crash, 0).history()));
    }

    /** A write in flight at the last kill, acknowledged after it (its PERSIST found the node dead), may be lost. */
    @Test
    void aWriteInFlightAtTheCrashMayBeLostWhateverTheWindow() throws Exception
    {
        final Path file = dir.resolve("client-1.jsonl");
        Files.writeString(file, """
            {"index":0,"type":"invoke","process":1,"f":"write","key":"r1","value":1,"time":10}
            {"index":1,"type":"ok","process":1,"f":"write","key":"r1","value":1,"time":20}
            {"index":2,"type":"invoke","process":1,"f":"write","key":"r1","value":2,"time":95}
            {"index":3,"type":"ok","process":1,"f":"write","key":"r1","value":2,"time":150}
            {"index":4,"type":"invoke","process":2,"f":"read","key":"r1","value":null,"time":300}
            {"index":5,"type":"ok","process":2,"f":"read","key":"r1","value":1,"time":310}
            """, StandardCharsets.UTF_8);
        final History recorded = HistoryMerger.merge(List.of(file));
        assertEquals(Verdict.INVALID, check(recorded));
        final EverysecLosses.Adjusted adjusted = EverysecLosses.apply(recorded,
            List.of(new NemesisEvent("kill-refilling", "memory nodes", 60, 400, "", 101, 101)), 0);
        assertEquals(1, adjusted.excused(), "invoked at 95, before the last kill at 101, acknowledged at 150");
        assertEquals(Verdict.VALID, check(adjusted.history()));
    }

    /**
     * kill-refilling: the members that served restart from their disks once the second kill took the last copy of some
     * keys, and the pool's cut takes back what they acknowledged until then, and since the first kill (a write waiting
     * out the first node holds the pool's durable epoch); what was acknowledged before the window of the first kill
     * is kept, and checked.
     */
    @Test
    void aWriteAcknowledgedUntilThePoolServedAgainMayBeLostButNotOneBeforeTheWindowOfTheFirstKill() throws Exception
    {
        final List<NemesisEvent> fault =
            List.of(new NemesisEvent("kill-refilling", "memory nodes", 60, 400, "", 60, 250));
        final EverysecLosses.Adjusted thirdLost = EverysecLosses.apply(refilled(2), fault, 15);
        assertEquals(1, thirdLost.excused(), "the write invoked at 120, after the kills, before 250");
        assertEquals(Verdict.VALID, check(thirdLost.history()));

        final EverysecLosses.Adjusted secondLost = EverysecLosses.apply(refilled(1), fault, 15);
        assertEquals(Verdict.INVALID, check(secondLost.history()),
            "the write acknowledged at 40, before 60 - 15, may not be lost");
        assertEquals(Verdict.VALID, check(EverysecLosses.apply(refilled(1), fault, 25).history()),
            "with a window of 25 it may");
    }

    /** Three writes of r1, the first before the fault, the second between its kills, the third after; then a read. */
    private History refilled(final int readValue) throws Exception
    {
        final Path file = dir.resolve("client-refilled-" + readValue + ".jsonl");
        Files.writeString(file, """
            {"index":0,"type":"invoke","process":1,"f":"write","key":"r1","value":1,"time":5}
            {"index":1,"type":"ok","process":1,"f":"write","key":"r1","value":1,"time":8}
            {"index":2,"type":"invoke","process":1,"f":"write","key":"r1","value":2,"time":30}
            {"index":3,"type":"ok","process":1,"f":"write","key":"r1","value":2,"time":40}
            {"index":4,"type":"invoke","process":1,"f":"write","key":"r1","value":3,"time":120}
            {"index":5,"type":"ok","process":1,"f":"write","key":"r1","value":3,"time":130}
            {"index":6,"type":"invoke","process":2,"f":"read","key":"r1","value":null,"time":300}
            """ + "{\"index\":7,\"type\":\"ok\",\"process\":2,\"f\":\"read\",\"key\":\"r1\",\"value\":" + readValue +
            ",\"time\":310}\n", StandardCharsets.UTF_8);
        return HistoryMerger.merge(List.of(file));
    }

    @Test
    void aCleanStopOfTheClusterExcusesNothing() throws Exception
    {
        final History recorded = lostSecondWrite();
        final EverysecLosses.Adjusted adjusted = EverysecLosses.apply(recorded,
            List.of(new NemesisEvent("restart-cluster", "cluster", 100, 200, "")), 70);
        assertEquals(0, adjusted.excused());
        assertEquals(Verdict.INVALID, check(adjusted.history()));
    }
}
