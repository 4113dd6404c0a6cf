package io.dkv.client.txn;

/**
 * The observer that runs a read-only transaction: reads x then y (resolving what it meets), then reads both again, in
 * either order, each of which must still hold the version read.
 *
 * @param lookup   where it is in reading a key, or null while validating.
 * @param versions the version read per key.
 * @param values   the value read per key.
 * @param left     while validating: the keys still to read again.
 * @param writes   its writes so far (pushes and resolutions).
 */
record ReadOnlyReader(Lookup lookup, KeyInts versions, KeyInts values, int left, int writes) implements Actor
{
    @Override
    public Actor withWrites(final int writes)
    {
        return new ReadOnlyReader(lookup, versions, values, left, writes);
    }
}
