package io.dkv.load.check.harness;

import java.util.Set;

/**
 * A checker's judgement of a history.
 *
 * @param checker   which checker judged (linearizability, list-append).
 * @param verdict   valid, invalid or unknown.
 * @param text      its explanation, several lines.
 * @param failing   indices of the invocations of the operations that witness a violation, to mark on the timeline.
 */
public record CheckResult(String checker, Verdict verdict, String text, Set<Long> failing)
{
}
