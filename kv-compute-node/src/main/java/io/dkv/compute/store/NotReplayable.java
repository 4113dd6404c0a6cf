package io.dkv.compute.store;

/**
 * Thrown by a replayed run ({@link KeyStore#replayed}) that met what a transaction does not hold as the command does
 * alone: a string in pieces (its reads stream piece by piece, its writes publish pieces before the commit), or a
 * command that goes another way inside a transaction (BITOP's result in pieces). Nothing was written: the run's
 * transaction commits nothing once its function throws, and the command runs again as it would alone, where waiting
 * is allowed. Not an error: no stack trace is kept.
 */
public final class NotReplayable extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /** The one instance: it carries nothing. */
    public static final NotReplayable INSTANCE = new NotReplayable();

    private NotReplayable()
    {
        super("not replayable: the command runs as it would alone", null, false, false);
    }
}
