package io.dkv.client.txn;

/**
 * The single-key writer: a put, which reads its key through what it holds (resolving an intent first) and swaps its
 * value in by a compare-and-set from the version read, again from the read when another write beat it.
 *
 * @param lookup  where it is in reading the key, or null once it has the version to swap from.
 * @param version the version read.
 * @param writes  its writes so far.
 */
record PlainWriter(Lookup lookup, int version, int writes) implements Actor
{
    @Override
    public Actor withWrites(final int writes)
    {
        return new PlainWriter(lookup, version, writes);
    }
}
