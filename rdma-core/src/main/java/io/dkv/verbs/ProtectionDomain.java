package io.dkv.verbs;

import java.lang.foreign.MemorySegment;

/**
 * Protection domain, as {@code ibv_pd}: regions, queue pairs and targets in one domain may be used
 * together; a remote request through a QP of another domain is refused.
 */
public interface ProtectionDomain extends AutoCloseable
{
    /**
     * Allocate and register memory that peers may access as the flags allow. The provider backs it
     * (a shared-memory file for {@code shm}, native memory for {@code tcp}); it is zeroed and
     * aligned to a page.
     *
     * @param size   bytes.
     * @param access {@link Access} flags.
     * @return the registered region.
     */
    MemoryRegion allocate(long size, int access);

    /**
     * Register memory the caller owns, as {@code ibv_reg_mr}. Providers whose peers cannot reach
     * arbitrary memory ({@code shm}) refuse remote access flags here.
     *
     * @param segment native memory.
     * @param access  {@link Access} flags.
     * @return the registered region.
     */
    MemoryRegion register(MemorySegment segment, int access);

    QueuePair createQp(QpInitAttributes attributes);

    DcTarget createDct(DctInitAttributes attributes);

    SharedReceiveQueue createSrq(int maxWr, int maxSge);

    AddressHandle createAh(PortAddress address);

    Device device();

    void close();
}
