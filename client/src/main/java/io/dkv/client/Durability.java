package io.dkv.client;

/**
 * What a write's acknowledgement promises about the memory node's disk.
 */
public enum Durability
{
    /** Memory only: a memory node that restarts comes back empty. */
    NONE,
    /**
     * The node is told after each write and writes the key to disk soon after (its lag is reported); a crash loses that
     * window.
     */
    ASYNC,
    /** A write returns only once the node has the key's state on disk (fsync): a crash loses nothing acknowledged. */
    SYNC
}
