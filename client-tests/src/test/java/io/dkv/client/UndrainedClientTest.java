package io.dkv.client;

import io.dkv.format.MemoryNodeProtocol;
import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.memory.MemoryNodeCounter;
import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RaasException;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.cnc.AttachedRaas;
import io.dkv.raas.driver.DriverCounter;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.driver.StandaloneDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The stall of the memory tier's answers, as `./dkv up` runs it: clients attached to the host's standalone driver,
 * two copies of each key, and among the memory nodes' clients one that sends requests and never reads an answer.
 * Before, a memory node answered by a send that waited for its client's credit: it stopped answering every client
 * behind the one that did not read, and a receive queue run dry held the memory nodes' DC initiators on
 * receiver-not-ready until their stall detectors recycled them, failing requests. Now the node offers answers and
 * queues those a client cannot take, every write of the others completes, and no initiator is recycled.
 */
class UndrainedClientTest
{
    private static final long[] IDS = {1, 2};
    private static final int CLIENTS = 4;
    private static final int THREADS = 3;
    private static final int KEYS = 200;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final StaticDirectory directory = new StaticDirectory();
    private final Opened open = new Opened();
    private final List<Raas> memoryDrivers = new ArrayList<>();
    private final List<MemoryNode> memoryNodes = new ArrayList<>();

    @AfterEach
    void close() throws Exception
    {
        open.close();
    }

    @ParameterizedTest(name = "{0}, {1} receive buffers in the host's driver")
    @CsvSource({"shm, 1024", "tcp, 1024", "shm, 64", "tcp, 64"})
    @Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aClientThatStopsReadingItsAnswersHoldsBackNoOtherClient(final String provider, final int receiveBuffers)
        throws Exception
    {
        // 64: fewer buffers than a fixed 16 credits for each of the host driver's dozens of connections; before,
        // a quarter of such runs saw the memory nodes' initiators recycled
        directory.membership(new Membership(1, 2, IDS, new int[] {Membership.LIVE, Membership.LIVE}));
        for (final long id : IDS)
        {
            // the drivers' defaults, as `./dkv memory-node` starts them
            final Raas raas = open.add(RaasDriver.start(new RaasContext()
                .verbs(Opened.driver(provider, id).verbs()).nodeId(id).role(NodeRecord.ROLE_MEMORY), directory));
            memoryDrivers.add(raas);
            memoryNodes.add(open.add(MemoryNode.start(raas, new MemoryNodeContext())));
        }
        final String name = "undrained-test-" + ProcessHandle.current().pid() + "-" + provider;
        final StandaloneDriver driver = open.add(StandaloneDriver.launch(new RaasContext()
            .verbs(Opened.driver(provider, 100).verbs()).nodeId(100).receiveBuffers(receiveBuffers).driverName(name),
            directory));

        final AtomicBoolean stop = new AtomicBoolean();
        final Thread undrained = undrainedClient(provider, stop);

        final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        final List<Thread> writers = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++)
        {
            final Raas attached = open.add(AttachedRaas.attach(new RaasContext().driverName(name)));
            final KvClient client = open.add(KvClient.connect(attached, new KvClientContext().memoryNodes(IDS)));
            for (int t = 0; t < THREADS; t++)
            {
                final String prefix = "client-" + c + "-thread-" + t + "-key-";
                writers.add(Thread.ofPlatform().start(() ->
                {
                    try
                    {
                        for (int i = 0; i < KEYS; i++)
                        {
                            client.put(bytes(prefix + i), bytes("value of " + prefix + i + " ".repeat(200)));
                        }
                        for (int i = 0; i < KEYS; i++)
                        {
                            assertArrayEquals(bytes("value of " + prefix + i + " ".repeat(200)),
                                client.get(bytes(prefix + i)), prefix + i);
                        }
                    }
                    catch (final Throwable ex)
                    {
                        failures.add(ex);
                    }
                }));
            }
        }
        for (final Thread writer : writers)
        {
            writer.join();
        }
        stop.set(true);
        undrained.join(30_000);

        assertEquals(List.of(), List.copyOf(failures), "every write and read of the clients that read their answers");
        long queued = 0;
        for (int i = 0; i < IDS.length; i++)
        {
            final RaasDriver memoryDriver = (RaasDriver)memoryDrivers.get(i);
            assertEquals(0, memoryDriver.counters().value(DriverCounter.MESSAGE_CREDIT_WAITS),
                "node " + IDS[i] + "'s answers waited for a client's credit");
            assertEquals(0, memoryDriver.recycledQueuePairs(), "node " + IDS[i] + "'s queue pairs recycled");
            queued += memoryNodes.get(i).counters().get(MemoryNodeCounter.ANSWERS_QUEUED).get();
        }
        assertEquals(0, driver.driver().recycledQueuePairs(), "the standalone driver's queue pairs recycled");
        assertTrue(queued > 0, "the answers of the client that did not read them waited in their queue");
    }

    /**
     * A client of both memory nodes that sends requests (malformed ones, which change nothing and are answered) and
     * never reads an answer, until stopped.
     */
    private Thread undrainedClient(final String provider, final AtomicBoolean stop)
    {
        final Raas raas = open.add(RaasDriver.start(Opened.driver(provider, 200), directory));
        final List<Connection> connections = new ArrayList<>();
        for (final long id : IDS)
        {
            connections.add(raas.connect(id, MemoryNodeProtocol.SERVICE, Flags.ADAPTIVE, null));
        }
        final MemorySegment request = Arena.ofAuto().allocate(MemoryNodeProtocol.REQUEST_LENGTH);
        request.set(INT, MemoryNodeProtocol.TYPE_OFFSET, 99);
        final Thread thread = Thread.ofPlatform().daemon().start(() ->
        {
            while (!stop.get())
            {
                for (final Connection connection : connections)
                {
                    try
                    {
                        // offered: once the node stops reading this client, its credits run out and nothing waits
                        connection.offer(request, 0, MemoryNodeProtocol.REQUEST_LENGTH);
                    }
                    catch (final RaasException closed)
                    {
                        return;
                    }
                }
                java.util.concurrent.locks.LockSupport.parkNanos(50_000);
            }
        });
        return thread;
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
