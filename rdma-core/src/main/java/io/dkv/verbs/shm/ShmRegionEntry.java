package io.dkv.verbs.shm;

/**
 * A consistent copy of one MR table entry, filled by {@link ShmControlFile#readRegion}.
 */
final class ShmRegionEntry
{
    int key;
    int pdId;
    long base;
    long length;
    int access;
    long fileSeq;
}
