package io.dkv.raas;

import io.dkv.raas.driver.RaasDriver;
import io.dkv.verbs.VerbsContext;

/**
 * Two embedded drivers sharing a directory: the usual setting of a RaaS test.
 */
public final class RaasPair implements AutoCloseable
{
    final StaticDirectory directory = new StaticDirectory();
    final Raas a;
    final Raas b;

    RaasPair(final String provider)
    {
        this(provider, context -> context);
    }

    RaasPair(final String provider, final java.util.function.UnaryOperator<RaasContext> tune)
    {
        a = RaasDriver.start(tune.apply(context(provider, 1)), directory);
        b = RaasDriver.start(tune.apply(context(provider, 2)), directory);
    }

    /** @return a region B allocates in its own memory and publishes, as A finds it by name. */
    RemoteRegion publishedByB(final String name, final long length)
    {
        return published(b, a, name, length);
    }

    /** @return a region {@code owner} allocates in its own memory and publishes, as {@code reader} finds it by name. */
    static RemoteRegion published(final Raas owner, final Raas reader, final String name, final long length)
    {
        owner.malloc(owner.self().id(), length, name);
        return reader.lookup(name);
    }

    /** @return the usual context of a driver in a RaaS test; public for the tests of the driver package too. */
    public static RaasContext context(final String provider, final long nodeId)
    {
        return new RaasContext()
            .verbs(new VerbsContext().provider(provider).tcpAddress("127.0.0.1:0"))
            .nodeId(nodeId)
            .receiveBuffers(256)
            .requestSlots(1024)
            .advertisedBytes(256 * 1024)
            .timeoutMs(10_000);
    }

    public void close()
    {
        a.close();
        b.close();
    }
}
