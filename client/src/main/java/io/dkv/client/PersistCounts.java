package io.dkv.client;

/**
 * What a client's writes told the memory nodes of the keys they changed (PERSIST, under durability async or sync), for
 * a process that reports it: a compute node's INFO persistence.
 *
 * @param told    PERSIST requests sent or queued so far, one per copy of a key written.
 * @param pending of those, the ones not sent yet or, under durability sync, not answered yet: writes whose disk is
 *                still to come.
 * @param failed  writes a node did not confirm on disk (it failed, timed out or keeps nothing on disk).
 */
public record PersistCounts(long told, long pending, long failed)
{
}
