package io.dkv.verbs.shm;

/**
 * A consistent copy of one endpoint table entry, filled by {@link ShmControlFile#readEndpoint}.
 */
final class ShmEndpointEntry
{
    int number;
    int kind;
    int state;
    int pdId;
    int access;
    int qkey;
    long dcKey;
    long fileSeq;
}
