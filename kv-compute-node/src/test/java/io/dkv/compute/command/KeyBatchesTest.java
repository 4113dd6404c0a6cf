package io.dkv.compute.command;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A key's commands run one batch at a time: the first alone at once, those that came meanwhile next, as one batch of
 * the first waiting one's event loop (the others of another loop after), at most {@link KeyBatches#MAX_BATCH}; other
 * keys' beside them.
 */
class KeyBatchesTest
{
    /** A waiting command: its name and its event loop. */
    private record Command(String name, Executor loop)
    {
    }

    private final List<Runnable> loopA = new ArrayList<>();
    private final List<Runnable> loopB = new ArrayList<>();
    private final Executor a = loopA::add;
    private final Executor b = loopB::add;
    private final List<List<String>> batches = new ArrayList<>();
    private final List<CompletableFuture<Void>> running = new ArrayList<>();
    private final KeyBatches<Command> keyBatches = new KeyBatches<>(Command::loop, batch ->
    {
        batches.add(batch.stream().map(Command::name).toList());
        final CompletableFuture<Void> done = new CompletableFuture<>();
        running.add(done);
        return done;
    });

    @Test
    void aKeysCommandsThatCameMeanwhileGoNextAsOneBatchOfOneLoop()
    {
        keyBatches.submit(key("k"), new Command("a1", a));
        keyBatches.submit(key("k"), new Command("a2", a));
        keyBatches.submit(key("k"), new Command("b1", b));
        keyBatches.submit(key("k"), new Command("a3", a));
        keyBatches.submit(key("other"), new Command("b2", b));
        assertEquals(List.of(List.of("a1"), List.of("b2")), batches, "the first of each key at once, alone");

        running.get(0).complete(null);
        assertEquals(2, batches.size(), "the next batch starts on its loop");
        runAll(loopA);
        assertEquals(List.of("a2", "a3"), batches.get(2), "those of a1's loop that waited, in one batch");

        running.get(2).complete(null);
        runAll(loopB);
        assertEquals(List.of("b1"), batches.get(3), "then the other loop's");
        running.get(3).complete(null);
        keyBatches.submit(key("k"), new Command("a4", a));
        assertEquals(List.of("a4"), batches.get(4), "the key runs nothing: at once again");
    }

    @Test
    void aBatchHoldsAtMostMaxBatchCommands()
    {
        keyBatches.submit(key("k"), new Command("first", a));
        for (int i = 0; i < KeyBatches.MAX_BATCH + 3; i++)
        {
            keyBatches.submit(key("k"), new Command("c" + i, a));
        }
        running.get(0).complete(null);
        runAll(loopA);
        assertEquals(KeyBatches.MAX_BATCH, batches.get(1).size());
        running.get(1).complete(null);
        runAll(loopA);
        assertEquals(List.of("c" + KeyBatches.MAX_BATCH, "c" + (KeyBatches.MAX_BATCH + 1),
            "c" + (KeyBatches.MAX_BATCH + 2)), batches.get(2));
    }

    private static byte[] key(final String name)
    {
        return name.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    private static void runAll(final List<Runnable> loop)
    {
        while (!loop.isEmpty())
        {
            loop.remove(0).run();
        }
    }
}
