package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;

/**
 * LITE's calls on one provider: an RPC round trip against a message echo's of the same size, and memcpy and
 * memset between regions of another node against moving the same bytes with one READ and one WRITE.
 *
 * @param provider        the provider.
 * @param size            bytes of the request and of the reply (RPC), or moved (memory).
 * @param rpc             the RPC call's latency; null in a memory row.
 * @param echo            the message round trip's latency; null in a memory row.
 * @param memcpyMBps      memcpy's MB/s; 0 in an RPC row.
 * @param memsetMBps      memset's MB/s; 0 in an RPC row.
 * @param readWriteMBps   one READ of the whole range then one WRITE of it, MB/s; 0 in an RPC row.
 */
record LiteRow(
    Provider provider,
    int size,
    Latency rpc,
    Latency echo,
    double memcpyMBps,
    double memsetMBps,
    double readWriteMBps)
{
    boolean isRpc()
    {
        return rpc != null;
    }
}
