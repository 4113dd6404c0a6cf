package io.dkv.verbs;

/**
 * A send work request, as {@code struct ibv_send_wr}: mutable and reusable so that posting
 * allocates nothing. Requests chained through {@link #next(SendWorkRequest)} are posted in one
 * call (a doorbell batch).
 *
 * <p>Atomic operands are host-order values; the remote 8-byte word and the original value
 * returned into the local buffer are in big-endian (network) order, as InfiniBand defines them.
 * RNICs under Linux work in the responder's host order instead: the {@code verbs} provider
 * reverses a compare-and-swap's operands on a little-endian host so that the model holds, and
 * refuses a fetch-and-add there, which cannot be turned around.
 */
public final class SendWorkRequest
{
    private final ScatterGatherList sgList;
    private long wrId;
    private Opcode opcode = Opcode.SEND;
    private int sendFlags;
    private int immData;
    private long remoteAddr;
    private int rkey;
    private long compareAdd;
    private long swap;
    private AddressHandle ah;
    private int remoteQpn;
    private int remoteQkey;
    private int dctNumber;
    private long dcKey;
    private SendWorkRequest next;

    /** A request with room for four scatter/gather entries. */
    public SendWorkRequest()
    {
        this(4);
    }

    /**
     * @param maxSge how many scatter/gather entries this request can carry.
     */
    public SendWorkRequest(final int maxSge)
    {
        sgList = new ScatterGatherList(maxSge);
    }

    /**
     * Clear every field but the scatter/gather capacity, so a reused request carries nothing over.
     *
     * @return this.
     */
    public SendWorkRequest reset()
    {
        sgList.numSge(0);
        wrId = 0;
        opcode = Opcode.SEND;
        sendFlags = 0;
        immData = 0;
        remoteAddr = 0;
        rkey = 0;
        compareAdd = 0;
        swap = 0;
        ah = null;
        remoteQpn = 0;
        remoteQkey = 0;
        dctNumber = 0;
        dcKey = 0;
        next = null;
        return this;
    }

    /** @return the local memory the request sends from, or where a READ or an atomic's result lands. */
    public ScatterGatherList sgList()
    {
        return sgList;
    }

    /**
     * Make the scatter/gather list exactly one element covering part of a region.
     *
     * @param region the local region.
     * @param offset byte offset inside it.
     * @param length number of bytes.
     * @return this.
     */
    public SendWorkRequest local(final MemoryRegion region, final long offset, final int length)
    {
        sgList.set(region, offset, length);
        return this;
    }

    /**
     * Target of a one-sided operation: a remote virtual address and the remote key of its region.
     *
     * @param remoteAddr remote virtual address.
     * @param rkey       remote key.
     * @return this.
     */
    public SendWorkRequest remote(final long remoteAddr, final int rkey)
    {
        this.remoteAddr = remoteAddr;
        this.rkey = rkey;
        return this;
    }

    /**
     * Destination of a UD send.
     *
     * @param ah         address handle of the remote port.
     * @param remoteQpn  remote UD QP number.
     * @param remoteQkey the remote QP's queue key.
     * @return this.
     */
    public SendWorkRequest ud(final AddressHandle ah, final int remoteQpn, final int remoteQkey)
    {
        this.ah = ah;
        this.remoteQpn = remoteQpn;
        this.remoteQkey = remoteQkey;
        return this;
    }

    /**
     * Destination of a request posted on a DC initiator.
     *
     * @param ah        address handle of the target's port.
     * @param dctNumber the DC target's number.
     * @param dcKey     the DC target's access key.
     * @return this.
     */
    public SendWorkRequest dc(final AddressHandle ah, final int dctNumber, final long dcKey)
    {
        this.ah = ah;
        this.dctNumber = dctNumber;
        this.dcKey = dcKey;
        return this;
    }

    public long wrId()
    {
        return wrId;
    }

    public SendWorkRequest wrId(final long wrId)
    {
        this.wrId = wrId;
        return this;
    }

    public Opcode opcode()
    {
        return opcode;
    }

    public SendWorkRequest opcode(final Opcode opcode)
    {
        this.opcode = opcode;
        return this;
    }

    public int sendFlags()
    {
        return sendFlags;
    }

    public SendWorkRequest sendFlags(final int sendFlags)
    {
        this.sendFlags = sendFlags;
        return this;
    }

    public int immData()
    {
        return immData;
    }

    public SendWorkRequest immData(final int immData)
    {
        this.immData = immData;
        return this;
    }

    public long remoteAddr()
    {
        return remoteAddr;
    }

    public int rkey()
    {
        return rkey;
    }

    public long compareAdd()
    {
        return compareAdd;
    }

    /**
     * @param compareAdd the value compared by ATOMIC_CMP_AND_SWP or added by ATOMIC_FETCH_AND_ADD.
     * @return this.
     */
    public SendWorkRequest compareAdd(final long compareAdd)
    {
        this.compareAdd = compareAdd;
        return this;
    }

    public long swap()
    {
        return swap;
    }

    public SendWorkRequest swap(final long swap)
    {
        this.swap = swap;
        return this;
    }

    public AddressHandle ah()
    {
        return ah;
    }

    public int remoteQpn()
    {
        return remoteQpn;
    }

    public int remoteQkey()
    {
        return remoteQkey;
    }

    public int dctNumber()
    {
        return dctNumber;
    }

    public long dcKey()
    {
        return dcKey;
    }

    public SendWorkRequest next()
    {
        return next;
    }

    public SendWorkRequest next(final SendWorkRequest next)
    {
        this.next = next;
        return this;
    }

    public String toString()
    {
        return "send_wr{wrId=" + wrId + ", opcode=" + opcode + ", flags=0x" + Integer.toHexString(sendFlags) +
            ", numSge=" + sgList.numSge() + ", remoteAddr=0x" + Long.toHexString(remoteAddr) + ", rkey=0x" +
            Integer.toHexString(rkey) + '}';
    }
}
