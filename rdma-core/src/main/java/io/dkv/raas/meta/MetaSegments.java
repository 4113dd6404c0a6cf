package io.dkv.raas.meta;

import io.dkv.raas.Raas;

import java.lang.foreign.MemorySegment;

/**
 * The registered buffers a directory's links share (one link works at a time): requests, replies
 * and one-sided READs.
 */
record MetaSegments(MemorySegment request, MemorySegment reply, MemorySegment read)
{
    static MetaSegments allocate(final Raas raas)
    {
        return new MetaSegments(
            raas.allocateBuffer(4096),
            raas.allocateBuffer(MetaRpcDescriptor.MAX_FRAME_LENGTH),
            raas.allocateBuffer(MetaTableReader.BUFFER_BYTES));
    }
}
