package io.dkv.compute;

/**
 * A compute node over a store in this JVM (as the tests make it) on the port given, serving until killed: what
 * redis-benchmark is pointed at to measure the node itself, with no MetaServer or other process in the way.
 * {@code java -cp ... io.dkv.compute.TestStoreMain 6390}.
 */
public final class TestStoreMain
{
    private TestStoreMain()
    {
    }

    public static void main(final String[] args) throws InterruptedException
    {
        final int port = args.length > 0 ? Integer.parseInt(args[0]) : 6390;
        try (TestStore store = new TestStore(new ComputeNodeContext(), port))
        {
            System.out.println("serving RESP on 127.0.0.1:" + store.port());
            Thread.currentThread().join();
        }
    }
}
