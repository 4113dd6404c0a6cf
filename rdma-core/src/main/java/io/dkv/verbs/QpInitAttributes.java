package io.dkv.verbs;

/**
 * Queue pair creation attributes, as {@code struct ibv_qp_init_attr}.
 */
public final class QpInitAttributes
{
    private QpType type = QpType.RC;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private SharedReceiveQueue srq;
    private int maxSendWr = 128;
    private int maxRecvWr = 128;
    private int maxSendSge = 4;
    private int maxRecvSge = 4;
    private int maxInlineData = 64;
    private boolean sqSigAll;

    public QpType type()
    {
        return type;
    }

    public QpInitAttributes type(final QpType type)
    {
        this.type = type;
        return this;
    }

    public CompletionQueue sendCq()
    {
        return sendCq;
    }

    public QpInitAttributes sendCq(final CompletionQueue sendCq)
    {
        this.sendCq = sendCq;
        return this;
    }

    public CompletionQueue recvCq()
    {
        return recvCq;
    }

    public QpInitAttributes recvCq(final CompletionQueue recvCq)
    {
        this.recvCq = recvCq;
        return this;
    }

    /** Use one CQ for both send and receive completions. */
    public QpInitAttributes cq(final CompletionQueue cq)
    {
        this.sendCq = cq;
        this.recvCq = cq;
        return this;
    }

    public SharedReceiveQueue srq()
    {
        return srq;
    }

    public QpInitAttributes srq(final SharedReceiveQueue srq)
    {
        this.srq = srq;
        return this;
    }

    public int maxSendWr()
    {
        return maxSendWr;
    }

    public QpInitAttributes maxSendWr(final int maxSendWr)
    {
        this.maxSendWr = maxSendWr;
        return this;
    }

    public int maxRecvWr()
    {
        return maxRecvWr;
    }

    public QpInitAttributes maxRecvWr(final int maxRecvWr)
    {
        this.maxRecvWr = maxRecvWr;
        return this;
    }

    public int maxSendSge()
    {
        return maxSendSge;
    }

    public QpInitAttributes maxSendSge(final int maxSendSge)
    {
        this.maxSendSge = maxSendSge;
        return this;
    }

    public int maxRecvSge()
    {
        return maxRecvSge;
    }

    public QpInitAttributes maxRecvSge(final int maxRecvSge)
    {
        this.maxRecvSge = maxRecvSge;
        return this;
    }

    public int maxInlineData()
    {
        return maxInlineData;
    }

    public QpInitAttributes maxInlineData(final int maxInlineData)
    {
        this.maxInlineData = maxInlineData;
        return this;
    }

    public boolean sqSigAll()
    {
        return sqSigAll;
    }

    /** Signal every send request, whatever its flags. */
    public QpInitAttributes sqSigAll(final boolean sqSigAll)
    {
        this.sqSigAll = sqSigAll;
        return this;
    }
}
