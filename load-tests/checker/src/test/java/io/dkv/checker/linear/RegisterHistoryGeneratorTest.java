package io.dkv.checker.linear;

import io.dkv.checker.history.History;
import io.dkv.checker.history.HistoryJson;
import io.dkv.checker.history.Op;
import io.dkv.checker.history.OpType;
import io.dkv.checker.history.Operation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RegisterHistoryGeneratorTest
{
    private static final LinearizabilityChecker CHECKER = new LinearizabilityChecker(Duration.ofSeconds(30));

    @Test
    void generatedHistoriesAreLinearizable()
    {
        for (long seed = 1; seed <= 4; seed++)
        {
            final History history = RegisterHistoryGenerator.builder()
                .seed(seed).operations(20_000).keys(200).processes(5 + 5 * (int) seed).infoFraction(0.05).build()
                .generate();

            final LinearizabilityResult result = CHECKER.check(history);

            assertEquals(Verdict.VALID, result.verdict(), result::toText);
            assertEquals(200, result.keysChecked());
        }
    }

    @Test
    void generatedHistoriesWithUniqueValuesAndFewKeysAreLinearizable()
    {
        final History history = RegisterHistoryGenerator.builder()
            .seed(7).operations(5_000).keys(3).processes(12).valueRange(0).infoFraction(0.03).build().generate();

        final LinearizabilityResult result = CHECKER.check(history);

        assertEquals(Verdict.VALID, result.verdict(), result::toText);
    }

    @Test
    void theGeneratorCoversEveryOutcome()
    {
        final History history = RegisterHistoryGenerator.generate(3, 5_000, 20, 10);

        assertTrue(history.operations().stream().anyMatch(Operation::isFail), "a failed cas");
        assertTrue(history.operations().stream().anyMatch(operation -> operation.outcome() == OpType.INFO &&
            operation.completion() != null), "an info");
        assertTrue(history.operations().stream().anyMatch(operation -> operation.completion() == null),
            "no completion");
        assertTrue(history.operations().stream().anyMatch(operation -> Op.WRITE.equals(operation.f()) &&
            operation.value() == null), "a delete");
        assertEquals(5_000, history.operations().size());
    }

    @Test
    void theSameSeedGeneratesTheSameHistory()
    {
        assertEquals(
            RegisterHistoryGenerator.generate(11, 2_000, 10, 8).ops(),
            RegisterHistoryGenerator.generate(11, 2_000, 10, 8).ops());
    }

    @Test
    void aReadOfAValueNeverWrittenMakesAGeneratedHistoryInvalid()
    {
        for (long seed = 1; seed <= 3; seed++)
        {
            final RegisterHistoryGenerator.CorruptedHistory corrupted = RegisterHistoryGenerator.builder()
                .seed(seed).operations(20_000).keys(200).processes(10).build()
                .generateCorrupted(RegisterHistoryGenerator.Corruption.NEVER_WRITTEN_READ);

            final LinearizabilityResult result = CHECKER.check(corrupted.history());

            assertEquals(Verdict.INVALID, result.verdict(), result::toText);
            assertEquals(corrupted.corrupted().key(), result.failingKey(), result::toText);
            assertEquals(1, result.keyCount(Verdict.INVALID));
        }
    }

    @Test
    void aStaleReadMakesAGeneratedHistoryInvalid()
    {
        final RegisterHistoryGenerator.CorruptedHistory corrupted = RegisterHistoryGenerator.builder()
            .seed(5).operations(20_000).keys(200).processes(10).valueRange(0).build()
            .generateCorrupted(RegisterHistoryGenerator.Corruption.STALE_READ);

        final LinearizabilityResult result = CHECKER.check(corrupted.history());

        assertEquals(Verdict.INVALID, result.verdict(), result::toText);
        assertEquals(corrupted.corrupted().key(), result.failingKey(), result::toText);
        assertTrue(result.failingOperations().contains(corrupted.corrupted()));
    }

    @Test
    void aHistoryReadBackFromJsonLinesGetsTheSameVerdict(@TempDir final Path directory)
    {
        final History valid = RegisterHistoryGenerator.generate(21, 20_000, 200, 10);
        final RegisterHistoryGenerator.CorruptedHistory corrupted = RegisterHistoryGenerator.builder()
            .seed(21).operations(20_000).keys(200).processes(10).build()
            .generateCorrupted(RegisterHistoryGenerator.Corruption.NEVER_WRITTEN_READ);
        HistoryJson.write(valid, directory.resolve("valid.jsonl"));
        HistoryJson.write(corrupted.history(), directory.resolve("corrupted.jsonl"));

        final LinearizabilityResult validAgain = CHECKER.check(HistoryJson.read(directory.resolve("valid.jsonl")));
        final LinearizabilityResult corruptedAgain =
            CHECKER.check(HistoryJson.read(directory.resolve("corrupted.jsonl")));

        assertEquals(Verdict.VALID, validAgain.verdict(), validAgain::toText);
        assertEquals(Verdict.INVALID, corruptedAgain.verdict(), corruptedAgain::toText);
        assertEquals(CHECKER.check(corrupted.history()).toText().lines().skip(2).toList(),
            corruptedAgain.toText().lines().skip(2).toList());
    }
}
