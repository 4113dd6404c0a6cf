package io.dkv.client.async;

import io.dkv.client.Versioned;
import io.dkv.client.replication.ChainRest;
import io.dkv.client.replication.PersistRequests;
import io.dkv.client.replication.ReplicaChain;

import java.util.concurrent.CompletableFuture;

/**
 * Where an operation goes that its completions could not carry to the end: the synchronous operation, or what is
 * left of a write after its tail was won, run on one of the client's threads, never on the thread that delivered
 * the completion (it may be the driver's, which must not wait for itself).
 */
public interface AsyncSlowPath
{
    /**
     * Answer a GET ({@link AsyncGet#VALUE}, {@link AsyncGet#VERSIONED} or {@link AsyncGet#TTL}) synchronously.
     */
    void get(int kind, byte[] key, CompletableFuture<Object> future);

    /**
     * Run a write from the start, synchronously: nothing of the write carried so far is visible to anyone.
     *
     * @param rule a {@link ReplicaChain} rule.
     */
    void write(int rule, byte[] key, byte[] value, byte[] expected, Versioned version, long expireAt,
        CompletableFuture<Object> future);

    /**
     * Run a transaction's raw swap synchronously: the key from the block whose write id {@code version} names to a new
     * one, compared by write id only (with {@code version} null: placed only where the key holds nothing); completes
     * with the version put in place, or {@link Boolean#FALSE} where the key holds another block.
     */
    void swapRaw(byte[] key, Versioned version, byte[] value, long expireAt, CompletableFuture<Object> future);

    /** Finish a write that won its tail: the rest of its chain and its durability, synchronously. */
    void finishChain(ChainRest rest);

    /**
     * Tell the nodes of a write that is on every replica, as the client's durability asks, on the client's agent
     * ({@link PersistRequests}), which completes the write's future.
     *
     * @return false when it cannot take it now (too many queued): the caller uses {@link #finishChain}.
     */
    boolean persist(PersistRequests.Job job);
}
