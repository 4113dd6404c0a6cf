package io.dkv.verbs;

/**
 * DC target creation attributes (mlx5dv's DCT): where incoming SENDs land and what the DC key is.
 */
public final class DctInitAttributes
{
    private CompletionQueue cq;
    private SharedReceiveQueue srq;
    private long dcKey;
    private int accessFlags = Access.REMOTE_READ | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC;

    public CompletionQueue cq()
    {
        return cq;
    }

    public DctInitAttributes cq(final CompletionQueue cq)
    {
        this.cq = cq;
        return this;
    }

    public SharedReceiveQueue srq()
    {
        return srq;
    }

    public DctInitAttributes srq(final SharedReceiveQueue srq)
    {
        this.srq = srq;
        return this;
    }

    public long dcKey()
    {
        return dcKey;
    }

    public DctInitAttributes dcKey(final long dcKey)
    {
        this.dcKey = dcKey;
        return this;
    }

    public int accessFlags()
    {
        return accessFlags;
    }

    public DctInitAttributes accessFlags(final int accessFlags)
    {
        this.accessFlags = accessFlags;
        return this;
    }
}
