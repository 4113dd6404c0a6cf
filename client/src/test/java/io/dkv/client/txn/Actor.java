package io.dkv.client.txn;

/**
 * An actor's local state: what it remembers between its steps. Records compared by value; an actor that is done or
 * crashed becomes {@link Stopped} and forgets everything (its history stays in the history), so that runs that differ
 * only in what a finished actor once knew merge.
 */
sealed interface Actor permits Coordinator, GetReader, ReadOnlyReader, PlainWriter, Actor.Stopped
{
    /** @return how many writes it has made: its next write's id is the next one. */
    int writes();

    Actor withWrites(int writes);

    /** Done or crashed: no more steps. */
    record Stopped() implements Actor
    {
        static final Stopped STOPPED = new Stopped();

        @Override
        public int writes()
        {
            return 0;
        }

        @Override
        public Actor withWrites(final int writes)
        {
            return this;
        }
    }
}
