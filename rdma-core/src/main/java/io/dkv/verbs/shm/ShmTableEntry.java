package io.dkv.verbs.shm;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * A reader's copy of one entry of a control file's table. {@link ShmControlFile} makes the copy
 * again until no write overlapped it (a seqlock), so an entry knows only where its fields lie.
 */
interface ShmTableEntry
{
    /** Copy the fields of the entry at {@code offset}: the copy may be torn, and is then made again. */
    void copyFrom(UnsafeBuffer buffer, int offset);
}
