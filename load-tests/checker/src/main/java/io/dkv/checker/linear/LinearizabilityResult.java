package io.dkv.checker.linear;

import io.dkv.checker.history.Operation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The outcome of a linearizability check: invalid when some key is, else unknown when the search gave up on some
 * key, else valid. An invalid result carries the failing key with the fewest operations, its operations, and an
 * explanation of why no order of them works.
 */
public final class LinearizabilityResult
{
    private static final int OPERATIONS_LISTED = 200;

    private final Verdict verdict;
    private final int keysChecked;
    private final int validKeys;
    private final List<String> invalidKeys;
    private final Map<String, String> unknownKeys;
    private final String failingKey;
    private final List<Operation> failingOperations;
    private final LinearizabilityExplanation explanation;
    private final long configurations;
    private final Duration elapsed;

    private LinearizabilityResult(
        final Verdict verdict,
        final int keysChecked,
        final int validKeys,
        final List<String> invalidKeys,
        final Map<String, String> unknownKeys,
        final KeyVerdict failing,
        final long configurations,
        final Duration elapsed)
    {
        this.verdict = verdict;
        this.keysChecked = keysChecked;
        this.validKeys = validKeys;
        this.invalidKeys = invalidKeys;
        this.unknownKeys = unknownKeys;
        this.failingKey = failing == null ? null : failing.key();
        this.failingOperations = failing == null ? List.of() : failing.subHistory();
        this.explanation = failing == null ? null : LinearizabilityExplanation.of(failing);
        this.configurations = configurations;
        this.elapsed = elapsed;
    }

    /** @param verdicts one per key, the smaller sub-histories first (ties in the order keys first appear). */
    static LinearizabilityResult of(final KeyVerdict[] verdicts, final Duration elapsed)
    {
        int valid = 0;
        long configurations = 0;
        final List<String> invalid = new ArrayList<>();
        final Map<String, String> unknown = new LinkedHashMap<>();
        KeyVerdict smallestFailing = null;
        for (final KeyVerdict keyVerdict : verdicts)
        {
            configurations += keyVerdict.configurations();
            switch (keyVerdict.verdict())
            {
                case VALID -> valid++;
                case UNKNOWN -> unknown.put(keyVerdict.key(), keyVerdict.unknownReason());
                case INVALID ->
                {
                    invalid.add(keyVerdict.key());
                    if (smallestFailing == null)
                    {
                        smallestFailing = keyVerdict;
                    }
                }
            }
        }
        final Verdict overall =
            !invalid.isEmpty() ? Verdict.INVALID : !unknown.isEmpty() ? Verdict.UNKNOWN : Verdict.VALID;
        return new LinearizabilityResult(overall, verdicts.length, valid, Collections.unmodifiableList(invalid),
            Collections.unmodifiableMap(unknown), smallestFailing, configurations, elapsed);
    }

    public Verdict verdict()
    {
        return verdict;
    }

    /** @return how many keys the history has (each checked, or given up on). */
    public int keysChecked()
    {
        return keysChecked;
    }

    /** @return how many keys got the verdict. */
    public int keyCount(final Verdict keyVerdict)
    {
        return switch (keyVerdict)
        {
            case VALID -> validKeys;
            case INVALID -> invalidKeys.size();
            case UNKNOWN -> unknownKeys.size();
        };
    }

    /** @return the keys found not linearizable, the smaller sub-histories first. */
    public List<String> invalidKeys()
    {
        return invalidKeys;
    }

    /** @return the keys the search gave up on (time budget or memory spent). */
    public List<String> unknownKeys()
    {
        return List.copyOf(unknownKeys.keySet());
    }

    /** @return why the search gave up on the key, or null when it did not. */
    public String unknownReason(final String key)
    {
        return unknownKeys.get(key);
    }

    /** @return of the keys found not linearizable, the one with the fewest operations; null unless invalid. */
    public String failingKey()
    {
        return failingKey;
    }

    /** @return every operation on {@link #failingKey()}, in invocation order; empty unless invalid. */
    public List<Operation> failingOperations()
    {
        return failingOperations;
    }

    /** @return why the failing key is not linearizable; null unless invalid. */
    public LinearizabilityExplanation explanation()
    {
        return explanation;
    }

    /** @return how many configurations the searches went through, all keys together. */
    public long configurations()
    {
        return configurations;
    }

    public Duration elapsed()
    {
        return elapsed;
    }

    public String toText()
    {
        final StringBuilder text = new StringBuilder(1024);
        text.append("linearizability: ").append(verdict).append('\n');
        text.append(keysChecked).append(keysChecked == 1 ? " key: " : " keys: ")
            .append(validKeys).append(" valid, ").append(invalidKeys.size())
            .append(" invalid, ").append(unknownKeys.size()).append(" unknown; ").append(configurations)
            .append(" configurations in ").append(elapsed.toMillis()).append(" ms\n");
        unknownKeys.forEach((key, reason) ->
            text.append("unknown ").append(key).append(": ").append(reason).append('\n'));
        if (failingKey != null)
        {
            if (invalidKeys.size() > 1)
            {
                text.append("invalid keys: ").append(String.join(", ", invalidKeys)).append('\n');
            }
            text.append(explanation.toText());
            text.append("operations on ").append(failingKey).append(":\n");
            for (int i = 0; i < Math.min(OPERATIONS_LISTED, failingOperations.size()); i++)
            {
                text.append("  ").append(failingOperations.get(i)).append('\n');
            }
            if (failingOperations.size() > OPERATIONS_LISTED)
            {
                text.append("  ... ").append(failingOperations.size() - OPERATIONS_LISTED).append(" more\n");
            }
        }
        return text.toString();
    }

    public String toString()
    {
        return toText();
    }
}
