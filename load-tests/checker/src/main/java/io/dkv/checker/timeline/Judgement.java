package io.dkv.checker.timeline;

import java.util.Set;

/**
 * A checker's judgement of a history, as the timeline shows it.
 *
 * @param checker the checker that judged, e.g. linearizability or list-append.
 * @param verdict its verdict in a word, e.g. VALID, INVALID or UNKNOWN.
 * @param text    its explanation, several lines.
 * @param failing the indices of the invocations ({@code operation.invoke().index()}) of the operations that witness
 *                a violation, drawn red; empty when there is none.
 */
public record Judgement(String checker, String verdict, String text, Set<Long> failing)
{
}
