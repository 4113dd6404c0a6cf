package io.dkv.compute;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Compute nodes of one host started with reusePort share one RESP port (SO_REUSEPORT): the kernel spreads new
 * connections among them, and when one closes it stops accepting first while the others go on serving the port, the
 * keys set through either read through it. A node that does not ask for it cannot take a port in use.
 */
class ReusePortTest
{
    private static final int CONNECTIONS = 64;

    @Test
    void nodesSharingAPortEachTakeConnectionsAndTheOthersServeItWhenOneCloses() throws Exception
    {
        assumeReusePort();
        try (TestStore store = new TestStore(new ComputeNodeContext().reusePort(true)))
        {
            final ComputeNode first = store.computeNode();
            final ComputeNode second = ComputeNode.start(new ComputeNodeContext().client(store.client())
                .port(store.port()).bindAddress("127.0.0.1").ioThreads(1).reusePort(true));
            try
            {
                assertEquals(store.port(), second.port());
                final List<RawResp> clients = new ArrayList<>();
                try
                {
                    for (int i = 0; i < CONNECTIONS; i++)
                    {
                        clients.add(new RawResp(store.port()));
                    }
                    MetaCluster.await("every connection accepted by one node or the other",
                        () -> first.connections() + second.connections() == CONNECTIONS);
                    // each lands on one of two by a hash of its addresses: all 64 on one would be a 1 in 2^63 chance
                    assertTrue(first.connections() > 0 && second.connections() > 0, "connections spread: " +
                        first.connections() + " and " + second.connections());
                    for (int i = 0; i < CONNECTIONS; i++)
                    {
                        assertEquals("+OK", clients.get(i).call("SET", "shared-" + i, "v" + i));
                    }
                }
                finally
                {
                    for (final RawResp client : clients)
                    {
                        client.close();
                    }
                }
            }
            finally
            {
                second.close();
            }
            for (int i = 0; i < CONNECTIONS; i++)
            {
                try (RawResp client = new RawResp(store.port()))
                {
                    assertEquals("+PONG", client.call("PING"), "connection " + i + " after one node closed");
                    assertEquals("$v" + i, client.call("GET", "shared-" + i), "set through either node");
                }
            }
            MetaCluster.await("the closed node holds no connection", () -> second.connections() == 0);
        }
    }

    @Test
    void aNodeThatDoesNotAskForItCannotTakeAPortInUse()
    {
        assumeReusePort();
        try (TestStore store = new TestStore(new ComputeNodeContext().reusePort(true)))
        {
            final IllegalStateException refused = assertThrows(IllegalStateException.class, () -> ComputeNode.start(
                new ComputeNodeContext().client(store.client()).port(store.port()).bindAddress("127.0.0.1")
                    .ioThreads(1)));
            assertTrue(refused.getMessage().startsWith("cannot serve RESP on 127.0.0.1:" + store.port() + " ("),
                refused.getMessage());
        }
    }

    private static void assumeReusePort()
    {
        final boolean supported = ComputeNode.reusePortSupported();
        if (!supported)
        {
            System.out.println("ReusePortTest skipped: this platform has no SO_REUSEPORT (the JDK finds it missing)");
        }
        assumeTrue(supported, "this platform has no SO_REUSEPORT");
    }
}
