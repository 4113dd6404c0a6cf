package io.dkv.verbs;

/**
 * Queue pair modification attributes, as {@code struct ibv_qp_attr}: the target state and what
 * that transition needs.
 *
 * <ul>
 * <li>to INIT: {@link #accessFlags} (which remote operations this QP accepts as a responder) and,
 * for UD, {@link #qkey}.</li>
 * <li>to RTR: for RC, {@link #destAddress} and {@link #destQpn}.</li>
 * <li>to RTS, ERROR, RESET: nothing.</li>
 * </ul>
 */
public final class QpAttributes
{
    private QpState state;
    private int accessFlags;
    private int qkey;
    private PortAddress destAddress;
    private int destQpn;

    public static QpAttributes init(final int accessFlags)
    {
        return new QpAttributes().state(QpState.INIT).accessFlags(accessFlags);
    }

    public static QpAttributes rtr(final PortAddress destAddress, final int destQpn)
    {
        return new QpAttributes().state(QpState.RTR).destAddress(destAddress).destQpn(destQpn);
    }

    public static QpAttributes rtr()
    {
        return new QpAttributes().state(QpState.RTR);
    }

    public static QpAttributes rts()
    {
        return new QpAttributes().state(QpState.RTS);
    }

    public static QpAttributes error()
    {
        return new QpAttributes().state(QpState.ERROR);
    }

    public static QpAttributes reset()
    {
        return new QpAttributes().state(QpState.RESET);
    }

    public QpState state()
    {
        return state;
    }

    public QpAttributes state(final QpState state)
    {
        this.state = state;
        return this;
    }

    public int accessFlags()
    {
        return accessFlags;
    }

    public QpAttributes accessFlags(final int accessFlags)
    {
        this.accessFlags = accessFlags;
        return this;
    }

    public int qkey()
    {
        return qkey;
    }

    public QpAttributes qkey(final int qkey)
    {
        this.qkey = qkey;
        return this;
    }

    public PortAddress destAddress()
    {
        return destAddress;
    }

    public QpAttributes destAddress(final PortAddress destAddress)
    {
        this.destAddress = destAddress;
        return this;
    }

    public int destQpn()
    {
        return destQpn;
    }

    public QpAttributes destQpn(final int destQpn)
    {
        this.destQpn = destQpn;
        return this;
    }
}
