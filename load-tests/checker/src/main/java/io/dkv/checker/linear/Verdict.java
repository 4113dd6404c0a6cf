package io.dkv.checker.linear;

/**
 * What a check concluded, for one key or for a whole history.
 */
public enum Verdict
{
    /** Some order of the operations explains every result and respects real time. */
    VALID,
    /** No such order exists. */
    INVALID,
    /** The search ran out of time or memory before it could tell. */
    UNKNOWN
}
