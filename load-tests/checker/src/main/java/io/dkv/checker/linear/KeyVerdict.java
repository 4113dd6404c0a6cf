package io.dkv.checker.linear;

import io.dkv.checker.history.Operation;

import java.util.List;

/**
 * What the search concluded for one key.
 *
 * @param key            the key.
 * @param subHistory     every operation on it.
 * @param verdict        valid, invalid or unknown.
 * @param configurations how many configurations the search went through.
 * @param unknownReason  why the search gave up, when unknown.
 * @param placed         when invalid: the operations the search had to place (or could), see {@link KeyHistory}.
 * @param longestPrefix  when invalid: the longest order of them the search found linearizable, first the earliest.
 */
record KeyVerdict(
    String key,
    List<Operation> subHistory,
    Verdict verdict,
    long configurations,
    String unknownReason,
    List<Operation> placed,
    List<Operation> longestPrefix)
{
    static KeyVerdict valid(final KeyHistory history, final long configurations)
    {
        return new KeyVerdict(history.key, history.subHistory, Verdict.VALID, configurations, null, List.of(),
            List.of());
    }

    static KeyVerdict unknown(final KeyHistory history, final long configurations, final String reason)
    {
        return new KeyVerdict(history.key, history.subHistory, Verdict.UNKNOWN, configurations, reason, List.of(),
            List.of());
    }

    static KeyVerdict invalid(final KeyHistory history, final long configurations, final List<Operation> longestPrefix)
    {
        return new KeyVerdict(history.key, history.subHistory, Verdict.INVALID, configurations, null,
            List.of(history.placed), longestPrefix);
    }
}
