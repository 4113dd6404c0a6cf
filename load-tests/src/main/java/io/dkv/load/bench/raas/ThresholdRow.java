package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;

/**
 * Message round trips of one size, carried each way the thresholds choose between.
 *
 * @param provider      the provider.
 * @param path          the driver's queue pairs the messages travelled on.
 * @param size          message bytes.
 * @param send          SEND, or null when the message does not fit a receive buffer.
 * @param writeCopy     WRITE_WITH_IMM from a copy in registered memory.
 * @param writeRegister WRITE_WITH_IMM from the caller's memory, registered.
 */
record ThresholdRow(Provider provider, RaasPath path, int size, Latency send, Latency writeCopy, Latency writeRegister)
    implements PathRow
{
    boolean hasSend()
    {
        return send != null;
    }
}
