package io.dkv.compute.mesh;

/** A call to a peer that failed: it did not answer in time, is gone, or its handler refused the call. */
public final class MeshException extends RuntimeException
{
    public MeshException(final String message)
    {
        super(message);
    }

    public MeshException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
