package io.dkv.load.check.nemesis;

import io.dkv.checker.history.HistoryJson;
import io.dkv.checker.history.Op;
import io.dkv.checker.history.OpType;
import io.dkv.checker.queue.QueueChecker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * kill-mid-write finds its moment in a client's live history: the latest write or compare-and-set invoked and not
 * completed, whatever reads are open beside it and however the writer cut the file's last line.
 */
class WritesInFlightTest
{
    @TempDir
    Path dir;

    @Test
    void theLatestWriteOrCompareAndSetWithoutACompletionIsInFlight() throws Exception
    {
        final Path history = dir.resolve("client-0.0.jsonl");
        Files.writeString(history, lines(
            new Op(0, OpType.INVOKE, 1, Op.WRITE, "r1", 7L, 10, null),
            new Op(1, OpType.OK, 1, Op.WRITE, "r1", 7L, 20, null),
            new Op(2, OpType.INVOKE, 2, Op.CAS, "r2", List.of(7L, 8L), 30, null),
            new Op(3, OpType.INVOKE, 3, Op.READ, "r3", null, 40, null)) + "{\"index\":4,\"ty");

        final Op open = WritesInFlight.openWrite(history);

        assertEquals(Op.CAS, open.f());
        assertEquals(2, open.process());
    }

    @Test
    void nothingIsInFlightOnceEveryWriteCompletedOrWhileOnlyReadsAreOpen() throws Exception
    {
        final Path history = dir.resolve("client-1.0.jsonl");
        Files.writeString(history, lines(
            new Op(0, OpType.INVOKE, 1, Op.WRITE, "r1", 7L, 10, null),
            new Op(1, OpType.INFO, 1, Op.WRITE, "r1", 7L, 20, "timed out"),
            new Op(2, OpType.INVOKE, 2, Op.READ, "r2", null, 30, null)));

        assertNull(WritesInFlight.openWrite(history));
        assertNull(WritesInFlight.openWrite(dir.resolve("not-yet-written.jsonl")));
    }

    @Test
    void anAppendInFlightCountsAsAWrite() throws Exception
    {
        final Path history = dir.resolve("client-2.0.jsonl");
        Files.writeString(history, lines(
            new Op(0, OpType.INVOKE, 5, Op.TXN, null, List.of(List.of(Op.APPEND, "l0", 3L)), 10, null)));

        assertEquals(5, WritesInFlight.openWrite(history).process());
    }

    @Test
    void aBlockingDequeueOrAnEnqueueInFlightCountsAsAWrite() throws Exception
    {
        final Path history = dir.resolve("client-3.0.jsonl");
        Files.writeString(history, lines(
            new Op(0, OpType.INVOKE, 6, QueueChecker.ENQUEUE, "q0", 4L, 10, null),
            new Op(1, OpType.INVOKE, 7, QueueChecker.DEQUEUE, "q1", null, 20, null),
            new Op(2, OpType.INVOKE, 8, QueueChecker.DRAIN, "q2", null, 30, null)));

        assertEquals(7, WritesInFlight.openWrite(history).process());

        Files.writeString(history, lines(
            new Op(0, OpType.INVOKE, 6, QueueChecker.ENQUEUE, "q0", 4L, 10, null),
            new Op(1, OpType.INVOKE, 7, QueueChecker.DEQUEUE, "q1", null, 20, null),
            new Op(2, OpType.OK, 7, QueueChecker.DEQUEUE, "q1", null, 1_020, null)));

        assertEquals(6, WritesInFlight.openWrite(history).process());
    }

    /** @return the events as a history file holds them, a first line for the tail's cut start included. */
    private static String lines(final Op... ops)
    {
        final StringBuilder text = new StringBuilder("{\"cut\":\n");
        for (final Op op : ops)
        {
            text.append(HistoryJson.line(op)).append('\n');
        }
        return text.toString();
    }
}
