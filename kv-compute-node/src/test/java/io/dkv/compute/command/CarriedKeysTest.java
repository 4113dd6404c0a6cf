package io.dkv.compute.command;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A key's commands are admitted one at a time, in arrival order, each once the one before it on the key completed;
 * other keys' go on beside them; one that fails to start lets the next in.
 */
class CarriedKeysTest
{
    private static final Executor NOW = Runnable::run;

    @Test
    void aKeysCommandsRunOneAtATimeInArrivalOrderAndOtherKeysBesideThem()
    {
        final CarriedKeys keys = new CarriedKeys();
        final List<String> started = new ArrayList<>();
        final List<CompletableFuture<String>> running = new ArrayList<>();
        final List<CompletableFuture<String>> results = new ArrayList<>();
        for (final String name : List.of("a1", "a2", "b1", "a3"))
        {
            results.add(keys.admit(NOW, name.substring(0, 1).getBytes(StandardCharsets.US_ASCII), () ->
            {
                started.add(name);
                final CompletableFuture<String> transaction = new CompletableFuture<>();
                running.add(transaction);
                return transaction.thenApply(value -> name + value);
            }));
        }
        assertEquals(List.of("a1", "b1"), started, "a2 and a3 wait for a1; b1 runs beside it");
        running.get(1).complete("!");
        assertEquals("b1!", results.get(2).join());
        assertEquals(List.of("a1", "b1"), started);
        running.get(0).complete("!");
        assertEquals("a1!", results.get(0).join());
        assertEquals(List.of("a1", "b1", "a2"), started);
        assertFalse(results.get(3).isDone());
        running.get(2).completeExceptionally(new IllegalStateException("conflict"));
        assertTrue(results.get(1).isCompletedExceptionally(), "a2's failure is its own");
        assertEquals(List.of("a1", "b1", "a2", "a3"), started);
        running.get(3).complete("!");
        assertEquals("a3!", results.get(3).join());
    }

    @Test
    void oneThatThrowsAsItStartsLetsTheNextIn()
    {
        final CarriedKeys keys = new CarriedKeys();
        final byte[] key = {'k'};
        final CompletableFuture<String> first = new CompletableFuture<>();
        final CompletableFuture<String> holding = keys.admit(NOW, key, () -> first);
        final CompletableFuture<String> throwing = keys.admit(NOW, key, () ->
        {
            throw new IllegalArgumentException("bad");
        });
        final CompletableFuture<String> last = keys.admit(NOW, key, () -> CompletableFuture.completedFuture("last"));
        assertFalse(throwing.isDone());
        first.complete("first");
        assertEquals("first", holding.join());
        assertTrue(throwing.isCompletedExceptionally());
        assertEquals("last", last.join());
    }
}
