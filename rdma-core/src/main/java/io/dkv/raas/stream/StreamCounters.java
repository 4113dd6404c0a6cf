package io.dkv.raas.stream;

/**
 * What one stream end sent, by how: direct transfers (into an advertised buffer), indirect ones (through
 * the peer's stream buffer, by WRITE or inside the message), and advertisements it threw away as stale.
 * Written by the stream's writer only; read from any thread as a snapshot that may lag.
 */
public final class StreamCounters
{
    volatile long directTransfers;
    volatile long directBytes;
    volatile long indirectTransfers;
    volatile long indirectBytes;
    volatile long inlineTransfers;
    volatile long staleAdverts;

    public long directTransfers()
    {
        return directTransfers;
    }

    public long directBytes()
    {
        return directBytes;
    }

    public long indirectTransfers()
    {
        return indirectTransfers;
    }

    public long indirectBytes()
    {
        return indirectBytes;
    }

    /** @return indirect transfers that travelled inside their message (counted among indirect ones too). */
    public long inlineTransfers()
    {
        return inlineTransfers;
    }

    public long staleAdverts()
    {
        return staleAdverts;
    }

    /** @return the share of bytes sent directly, 0 to 1. */
    public double directShare()
    {
        final long all = directBytes + indirectBytes;
        return all == 0 ? 0 : (double)directBytes / all;
    }

    public String toString()
    {
        return "direct " + directTransfers + " (" + directBytes + " B), indirect " + indirectTransfers + " (" +
            indirectBytes + " B, " + inlineTransfers + " inline), stale adverts " + staleAdverts;
    }
}
