package io.dkv.checker.linear;

import io.dkv.checker.history.History;
import io.dkv.checker.history.Op;
import io.dkv.checker.history.OpType;
import io.dkv.checker.history.Operation;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random small histories of one register, judged by the checker and by trying every order of their operations.
 */
class ExhaustiveCrossCheckTest
{
    private static final Long[] VALUES = {null, 0L, 1L, 2L};
    private static final OpType[] OUTCOMES =
        {OpType.OK, OpType.OK, OpType.OK, OpType.OK, OpType.OK, OpType.FAIL, OpType.INFO, null};

    @Test
    void agreesWithTryingEveryOrder()
    {
        final LinearizabilityChecker checker = new LinearizabilityChecker(Duration.ofSeconds(10), 1, 1 << 20);
        final Random random = new Random(42);
        int valid = 0;
        int invalid = 0;
        for (int round = 0; round < 6_000; round++)
        {
            final History history = randomHistory(random, 2 + random.nextInt(7));
            final boolean expected = linearizable(history.operations());

            final LinearizabilityResult result = checker.check(history);

            assertEquals(expected ? Verdict.VALID : Verdict.INVALID, result.verdict(),
                () -> history.operations() + "\n" + result.toText());
            if (expected)
            {
                valid++;
            }
            else
            {
                invalid++;
                final int prefix = result.explanation().longestPrefix().size();
                assertTrue(result.explanation().blocked().stream()
                    .noneMatch(next -> next.reason().startsWith("could come")),
                    result::toText);
                assertTrue(prefix < history.operations().size(), result::toText);
            }
        }
        assertTrue(valid > 300 && invalid > 300, "valid " + valid + ", invalid " + invalid);
    }

    private static History randomHistory(final Random random, final int operations)
    {
        final List<Long> times = new ArrayList<>();
        for (long time = 0; time < 2L * operations; time++)
        {
            times.add(time);
        }
        final TestHistory history = new TestHistory();
        for (int i = 0; i < operations; i++)
        {
            final long a = times.remove(random.nextInt(times.size()));
            final long b = times.remove(random.nextInt(times.size()));
            final OpType outcome = OUTCOMES[random.nextInt(OUTCOMES.length)];
            final Long value = VALUES[random.nextInt(VALUES.length)];
            switch (random.nextInt(3))
            {
                case 0 -> history.add(Op.READ, "k", null, value, outcome, Math.min(a, b), Math.max(a, b));
                case 1 -> history.add(Op.WRITE, "k", value, value, outcome, Math.min(a, b), Math.max(a, b));
                default ->
                {
                    final List<Long> pair = Arrays.asList(value, VALUES[random.nextInt(VALUES.length)]);
                    history.add(Op.CAS, "k", pair, pair, outcome, Math.min(a, b), Math.max(a, b));
                }
            }
        }
        return history.history();
    }

    /** Some order of the ok operations and some of the indeterminate ones respects real time and the register. */
    private static boolean linearizable(final List<Operation> operations)
    {
        final List<Operation> candidates = operations.stream()
            .filter(operation -> !operation.isFail() && !(operation.isIndeterminate() && Op.READ.equals(operation.f())))
            .toList();
        return extend(candidates, new boolean[candidates.size()], null);
    }

    private static boolean extend(final List<Operation> candidates, final boolean[] placed, final Long value)
    {
        boolean allOkPlaced = true;
        for (int i = 0; i < candidates.size(); i++)
        {
            allOkPlaced &= placed[i] || !candidates.get(i).isOk();
        }
        if (allOkPlaced)
        {
            return true;
        }
        for (int i = 0; i < candidates.size(); i++)
        {
            if (!placed[i] && mayComeNext(candidates, placed, i))
            {
                final Operation next = candidates.get(i);
                if (allowed(next, value))
                {
                    placed[i] = true;
                    final boolean found = extend(candidates, placed, after(next, value));
                    placed[i] = false;
                    if (found)
                    {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static boolean mayComeNext(final List<Operation> candidates, final boolean[] placed, final int next)
    {
        for (int i = 0; i < candidates.size(); i++)
        {
            final Operation other = candidates.get(i);
            if (!placed[i] && other.isOk() && other.completion().index() < candidates.get(next).invoke().index())
            {
                return false;
            }
        }
        return true;
    }

    private static boolean allowed(final Operation operation, final Long value)
    {
        return switch (operation.f())
        {
            case Op.READ -> Objects.equals(operation.value(), value);
            case Op.WRITE -> true;
            default -> Objects.equals(((List<?>) operation.value()).get(0), value);
        };
    }

    private static Long after(final Operation operation, final Long value)
    {
        return switch (operation.f())
        {
            case Op.READ -> value;
            case Op.WRITE -> (Long) operation.value();
            default -> (Long) ((List<?>) operation.value()).get(1);
        };
    }
}
