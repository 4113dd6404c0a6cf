package io.dkv.load.bench.verbs;

/**
 * The tcp floor: for each probe, an echo server thread and a client on a fresh loopback
 * connection, exchanging messages the size of the operation's request and response.
 */
final class PingPongFloor implements ProbeFactory
{
    private final int window;

    /**
     * @param window requests in flight during throughput runs, as for the verbs probes.
     */
    PingPongFloor(final int window)
    {
        this.window = window;
    }

    public Probe probe(final Operation operation, final int size, final long[] offsets)
    {
        return new PingPongProbe(PingPongExchange.of(operation, size), window);
    }

    public String describe(final Operation operation, final int size)
    {
        return PingPongExchange.of(operation, size).describe();
    }

    public void close()
    {
    }
}
