package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;

/**
 * A RaaS byte stream against a {@link java.nio.channels.SocketChannel} pair over loopback, writing and
 * reading pieces of one size flat out.
 *
 * @param provider        the provider.
 * @param size            bytes per write (and per read).
 * @param raasBytesPerSec the stream's median throughput over the rounds.
 * @param socketBytesPerSec the socket pair's median throughput over the same rounds, taken in turn.
 * @param directShare     share of the stream's bytes that went direct (into buffers the reader advertised).
 * @param directTransfers the stream's direct transfers over every round.
 * @param indirectTransfers the stream's indirect transfers over every round.
 * @param staleAdverts    advertisements the stream's writer threw away as stale over every round.
 */
record StreamRow(
    Provider provider,
    int size,
    double raasBytesPerSec,
    double socketBytesPerSec,
    double directShare,
    long directTransfers,
    long indirectTransfers,
    long staleAdverts)
{
    /** @return stream / socket throughput; higher is better. */
    double ratio()
    {
        return raasBytesPerSec / socketBytesPerSec;
    }
}
