package io.dkv.checker.elle;

import io.dkv.checker.history.Operation;

/**
 * One edge of a cycle: a transaction that must precede another, and the evidence.
 *
 * @param from        the transaction that must come first.
 * @param to          the transaction that must come after it.
 * @param type        the kind of dependency.
 * @param key         the key whose list shows it, or null for a real-time dependency.
 * @param element     the element that shows it (the one appended by {@code to} for ww and rw, the one read by
 *                    {@code to} for wr), or null for a real-time dependency.
 * @param explanation the evidence in words, naming the transactions as in the witness.
 */
public record Dependency(Operation from, Operation to, DependencyType type, String key, Long element,
    String explanation)
{
}
