package io.dkv.checker.history;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A recorder keeps its events in memory or writes them to a file, not both: a client process of a long list-append
 * run recorded every list it read in memory beside its file, and ran out of heap before its final reads.
 */
class HistoryRecorderTest
{
    @Test
    void aRecorderWithoutAFileKeepsTheHistoryInMemory()
    {
        try (HistoryRecorder recorder = new HistoryRecorder(null))
        {
            recorder.ok(recorder.invoke(0, Op.WRITE, "k", 1L), 1L);
            assertEquals(2, recorder.history().ops().size());
        }
    }

    @Test
    void aRecorderWritingToAFileIsReadBackFromTheFileAndKeepsNoCopy(@TempDir final Path dir)
    {
        final Path file = dir.resolve("history.jsonl");
        try (HistoryRecorder recorder = new HistoryRecorder(file))
        {
            for (int i = 0; i < 1_000; i++)
            {
                final Op read = recorder.invoke(0, Op.TXN, null, List.of(List.of("r", "l0", List.of())));
                recorder.ok(read, List.of(List.of("r", "l0", List.of(1L, 2L, 3L))));
            }
            final IllegalStateException refused = assertThrows(IllegalStateException.class, recorder::history);
            assertTrue(refused.getMessage().contains(file.toString()), refused.getMessage());
        }
        final History history = HistoryJson.read(file);
        assertEquals(2_000, history.ops().size());
        assertEquals(1_999, history.ops().get(1_999).index(), "indices go on without a list to count");
    }
}
