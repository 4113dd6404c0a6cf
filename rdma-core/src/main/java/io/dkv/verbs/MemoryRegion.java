package io.dkv.verbs;

import java.lang.foreign.MemorySegment;

/**
 * A registered memory region, as {@code ibv_mr}: memory the device may access locally (lkey) and,
 * with remote access flags, that peers may access with one-sided operations (rkey).
 */
public interface MemoryRegion extends AutoCloseable
{
    /** @return the registered memory; valid until {@link #deregister()} for provider-allocated regions. */
    MemorySegment segment();

    /** @return the virtual address peers use for this region's first byte. */
    long address();

    long length();

    int lkey();

    int rkey();

    /** @return the {@link Access} flags the region was registered with. */
    int access();

    /** @return false once deregistered. */
    boolean isRegistered();

    /**
     * Deregister: every later local or remote access through this region's keys fails at once.
     * Memory the provider allocated for the region is released.
     */
    void deregister();

    default void close()
    {
        deregister();
    }
}
