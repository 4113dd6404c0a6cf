package io.dkv.load.bench;

import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.SendWorkRequest;

/**
 * Where a measurement's one-sided requests go: a remote region at its random offsets ({@link OffsetCursor}), one
 * request at a time, as the region's address there and its key.
 */
public final class RemoteTargets
{
    private final long base;
    private final int rkey;
    private final OffsetCursor offsets;

    /**
     * @param remote  the target's region.
     * @param offsets offsets into it, as {@link RandomOffsets#generate} draws them.
     */
    public RemoteTargets(final MemoryRegion remote, final long[] offsets)
    {
        this(remote, offsets, 0);
    }

    /**
     * @param remote  the target's region.
     * @param offsets offsets into it, as {@link RandomOffsets#generate} draws them.
     * @param first   the index of the first offset, so that several requesters of the same offsets go different ways.
     */
    public RemoteTargets(final MemoryRegion remote, final long[] offsets, final int first)
    {
        this.base = remote.address();
        this.rkey = remote.rkey();
        this.offsets = new OffsetCursor(offsets, first);
    }

    /**
     * Point a request at the region's next offset.
     *
     * @return the request.
     */
    public SendWorkRequest aim(final SendWorkRequest request)
    {
        return request.remote(base + offsets.next(), rkey);
    }
}
