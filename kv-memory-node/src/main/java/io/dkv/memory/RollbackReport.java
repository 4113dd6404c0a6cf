package io.dkv.memory;

/**
 * What a node's rollback to a cut did (kv-memory-node/README.md, "Coming back").
 *
 * @param cut             the epoch its keys went back to.
 * @param keysRolledBack  keys that hold an older version now.
 * @param keysRemoved     keys that are absent now: none of their versions was at or below the cut, or that one was
 *                        a delete.
 * @param versionsDropped versions above the cut, gone from the disk.
 * @param ambiguous       keys whose versions of the cut's side named no single last one of their epoch (a notice
 *                        missing): the later in row order was taken.
 * @param millis          how long it took.
 */
public record RollbackReport(long cut, long keysRolledBack, long keysRemoved, long versionsDropped, long ambiguous,
    long millis)
{
}
