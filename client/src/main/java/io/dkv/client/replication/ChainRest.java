package io.dkv.client.replication;

import io.dkv.client.Durability;

import java.util.concurrent.CompletableFuture;

/**
 * What is left of a write carried by completions once it won its tail and could go no further alone: the replicas
 * still to swap (from {@code from} down to the head, each from the word read), and the nodes to tell of the change
 * when the client's durability asks. Its own copies of the write's arrays, handed to one of the client's threads.
 *
 * @param nodes     the key's serving replicas in placement order (indices into the client's nodes); the other
 *                  arrays are as long.
 * @param slots     each replica's committed slot as read, or -1.
 * @param words     the word read there, or EMPTY.
 * @param replaced  the write id of the version read there (NO_WRITE: none), which the nodes' notices name.
 * @param newWords  this write's word for each replica.
 * @param offsets   this write's block on each replica.
 * @param from      the replica to go on from, -1 when only durability is left.
 * @param written   the write put a value (not a delete).
 * @param wonNanos  when the tail was won: past the client's timeout from then nothing more is posted.
 * @param answer    what the future is completed with once done.
 * @param durability what the write promises, as it began: its nodes are told so, whatever the client's is now.
 */
public record ChainRest(
    byte[] key, long hash, long writeId, int[] nodes, long[] slots, long[] words, long[] replaced, long[] newWords,
    long[] offsets, int from, boolean written, long wonNanos, Object answer, CompletableFuture<Object> future,
    Durability durability)
{
}
