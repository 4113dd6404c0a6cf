package io.dkv.checker;

import io.dkv.checker.elle.AnomalyNames;
import io.dkv.checker.elle.ElleResult;
import io.dkv.checker.history.History;
import io.dkv.checker.history.HistoryJson;
import io.dkv.checker.linear.LinearizabilityResult;
import io.dkv.checker.linear.Verdict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The module's README is what a project reads to use the checkers: its code must be {@link ReadmeExample}'s (which
 * compiles against the real API), its JSON lines a history the checkers read, and both must do what it says.
 */
class ReadmeExampleTest
{
    private static final Path README = Path.of("README.md");
    private static final Path EXAMPLE = Path.of("src/test/java/io/dkv/checker/ReadmeExample.java");

    @Test
    void everyCodeBlockOfTheReadmeIsInTheExample() throws IOException
    {
        final List<String> blocks = blocks("java");
        final String example = squeeze(Files.readString(EXAMPLE, StandardCharsets.UTF_8));

        assertEquals(4, blocks.size(), "the README's java blocks");
        for (final String block : blocks)
        {
            assertTrue(example.contains(squeeze(block)), () -> "not in " + EXAMPLE + ":\n" + block);
        }
    }

    @Test
    void concurrentClientsOfALinearizableStoreRecordALinearizableHistory(@TempDir final Path directory)
        throws InterruptedException
    {
        final Path file = directory.resolve("history.jsonl");

        final LinearizabilityResult result = ReadmeExample.recordAndCheckRegisters(file);

        assertEquals(Verdict.VALID, result.verdict(), result::toText);
        assertEquals(3, result.keysChecked());
        assertEquals(4 * 100 * 3, HistoryJson.read(file).operations().size(), "every operation on file");
    }

    @Test
    void theReadmesHistoryIsAStaleRead(@TempDir final Path directory) throws IOException
    {
        final Path file = directory.resolve("history.jsonl");
        Files.writeString(file, blocks("json").getFirst(), StandardCharsets.UTF_8);

        final LinearizabilityResult result = ReadmeExample.checkStaleRead(file);

        assertEquals(Verdict.INVALID, result.verdict(), result::toText);
        assertEquals("x", result.failingKey());
        assertEquals(3, result.failingOperations().size(), "the write, the read and the cas of unknown outcome");
    }

    @Test
    void readsOfTwoOrdersOfTheSameAppendsAreAnIncompatibleOrder()
    {
        final ElleResult result = ReadmeExample.recordAndCheckListAppend();

        assertFalse(result.isValid(), result::toText);
        assertEquals(List.of(AnomalyNames.INCOMPATIBLE_ORDER), result.anomalyNames(), result::toText);
        assertEquals(3, result.transactionsChecked());
    }

    @Test
    void theTimelineDrawsEveryOperationAndTheWitnessesRed(@TempDir final Path directory) throws IOException
    {
        final Path file = directory.resolve("history.jsonl");
        Files.writeString(file, blocks("json").getFirst(), StandardCharsets.UTF_8);
        final History history = HistoryJson.read(file);

        final String html = ReadmeExample.timeline(history, ReadmeExample.checkStaleRead(file));

        assertTrue(html.startsWith("<!DOCTYPE html>") && html.contains("<b>INVALID</b> (linearizability)"), html);
        assertEquals(3, html.split("<rect class=\"bad\"").length - 1, "every operation on the failing key red");
    }

    /** @return the README's fenced code blocks of the language, in order. */
    private static List<String> blocks(final String language) throws IOException
    {
        final List<String> blocks = new ArrayList<>();
        StringBuilder block = null;
        for (final String line : Files.readAllLines(README, StandardCharsets.UTF_8))
        {
            if (block == null && line.equals("```" + language))
            {
                block = new StringBuilder();
            }
            else if (block != null && line.equals("```"))
            {
                blocks.add(block.toString());
                block = null;
            }
            else if (block != null)
            {
                block.append(line).append('\n');
            }
        }
        return blocks;
    }

    /** @return the text with its whitespace runs made single spaces: the README indents its blocks differently. */
    private static String squeeze(final String text)
    {
        return text.replaceAll("\\s+", " ").trim();
    }
}
