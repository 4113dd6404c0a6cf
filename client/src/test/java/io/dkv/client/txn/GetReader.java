package io.dkv.client.txn;

/**
 * The observer that runs two single-key gets, x then y, each a transaction of one key.
 *
 * @param index  which get: 0 for x, 1 for y.
 * @param lookup where it is in reading its key.
 * @param writes its writes so far (pushes).
 */
record GetReader(int index, Lookup lookup, int writes) implements Actor
{
    static final int GETS = 2;

    @Override
    public Actor withWrites(final int writes)
    {
        return new GetReader(index, lookup, writes);
    }
}
