package io.dkv.verbs.shm;

/**
 * Layout of a shm device's control file, the part of the device peers read: who it is, its
 * registered regions (the MR table an RNIC keeps) and its responders (QPs and DC targets).
 * Entries are written by the owning device only, under a seqlock: the version word is odd while
 * an entry changes, and a reader retries until it sees the same even version before and after.
 *
 * <pre>
 * Header (128 bytes)
 *   0  magic            long   "DKVSHM01"
 *   8  version          int    layout version
 *  12  closed           int    1 once the device closed
 *  16  deviceId         long
 *  24  pid              long   owning process
 *  32  mrCapacity       int    entries in the MR table
 *  36  endpointCapacity int    entries in the endpoint table
 *  40  mrTableOffset    long
 *  48  endpointOffset   long
 *
 * MR entry (64 bytes), index = key &gt;&gt;&gt; 8
 *   0  version  long   seqlock
 *   8  key      int    lkey = rkey; 0 when free
 *  12  pdId     int
 *  16  base     long   virtual address of the region in the owner
 *  24  length   long
 *  32  access   int    Access flags
 *  40  fileSeq  long   names the backing file mr-&lt;fileSeq&gt;
 *
 * Endpoint entry (64 bytes), index = number &amp; (capacity - 1)
 *   0  version  long   seqlock
 *   8  number   int    QP or DCT number; 0 when free
 *  12  kind     int    KIND_RC, KIND_UD, KIND_DCI, KIND_DCT
 *  16  state    int    QpState ordinal (DCT: RTR)
 *  20  pdId     int
 *  24  access   int    responder access flags
 *  28  qkey     int    UD queue key
 *  32  dcKey    long   DC key of a DCT
 *  40  fileSeq  long   names the queue file q-&lt;fileSeq&gt;
 * </pre>
 */
public final class ShmControlDescriptor
{
    public static final long MAGIC = 0x31304d4853564b44L;
    public static final int LAYOUT_VERSION = 1;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 8;
    public static final int CLOSED_OFFSET = 12;
    public static final int DEVICE_ID_OFFSET = 16;
    public static final int PID_OFFSET = 24;
    public static final int MR_CAPACITY_OFFSET = 32;
    public static final int ENDPOINT_CAPACITY_OFFSET = 36;
    public static final int MR_TABLE_OFFSET_OFFSET = 40;
    public static final int ENDPOINT_TABLE_OFFSET_OFFSET = 48;
    public static final int HEADER_LENGTH = 128;

    public static final int ENTRY_LENGTH = 64;
    public static final int ENTRY_VERSION_OFFSET = 0;

    public static final int MR_KEY_OFFSET = 8;
    public static final int MR_PD_OFFSET = 12;
    public static final int MR_BASE_OFFSET = 16;
    public static final int MR_LENGTH_OFFSET = 24;
    public static final int MR_ACCESS_OFFSET = 32;
    public static final int MR_FILE_SEQ_OFFSET = 40;

    public static final int EP_NUMBER_OFFSET = 8;
    public static final int EP_KIND_OFFSET = 12;
    public static final int EP_STATE_OFFSET = 16;
    public static final int EP_PD_OFFSET = 20;
    public static final int EP_ACCESS_OFFSET = 24;
    public static final int EP_QKEY_OFFSET = 28;
    public static final int EP_DC_KEY_OFFSET = 32;
    public static final int EP_FILE_SEQ_OFFSET = 40;

    public static final int KIND_RC = 1;
    public static final int KIND_UD = 2;
    public static final int KIND_DCI = 3;
    public static final int KIND_DCT = 4;

    private ShmControlDescriptor()
    {
    }

    public static long mrTableOffset()
    {
        return HEADER_LENGTH;
    }

    public static long endpointTableOffset(final int mrCapacity)
    {
        return HEADER_LENGTH + (long)mrCapacity * ENTRY_LENGTH;
    }

    public static long fileLength(final int mrCapacity, final int endpointCapacity)
    {
        return endpointTableOffset(mrCapacity) + (long)endpointCapacity * ENTRY_LENGTH;
    }
}
