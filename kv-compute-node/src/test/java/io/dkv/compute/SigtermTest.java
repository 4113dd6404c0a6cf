package io.dkv.compute;

import io.dkv.process.ReadyLines;
import io.dkv.process.RoleProcess;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A compute node in a process of its own, as {@code ./dkv compute-node} runs it, exits on SIGTERM within its drain
 * timeout whatever hostile clients do: peers that pipelined 100,000 GETs of a 64 KiB value each (6.4 GB of replies)
 * and read none, then went a moment before the signal, or that still hold their connections and read nothing. Before
 * the node stopped reading such a peer, each of its event loops ran a read's worth of GETs into one ever-growing reply
 * buffer, about 20 s of work a peer on a 2-core machine, and its stop waited for the loops without a bound: one peer as
 * observed kept it 21-28 s past SIGTERM, four kept it past 30 s. The exit is asserted within a bound far over the
 * drain timeout, for a loaded 2-core machine; how long it took, and what a well-behaved client saw, are printed.
 */
class SigtermTest
{
    private static final long DRAIN_MS = 2_000;
    private static final long BOUND_MS = 30_000;
    private static final int PIPELINED = 100_000;
    private static final int HOSTILE_CONNECTIONS = 4;
    private static final long HOLD_MS = 1_000;
    private static final int VALUE_BYTES = 64 * 1024;
    /** A heap as a node in service has, not a test's small one: the old node grew its reply buffers in it. */
    private static final String HEAP = "2g";

    @TempDir
    Path dir;

    @Test
    void sigtermAfterAPeerLeftItsRepliesUnreadEndsTheProcessWithinTheDrainTimeout() throws Exception
    {
        hostilePeerThenSigterm(true);
    }

    @Test
    void sigtermWhileAPeerHoldsItsRepliesUnreadEndsTheProcessWithinTheDrainTimeout() throws Exception
    {
        hostilePeerThenSigterm(false);
    }

    /**
     * @param leave whether the peers disconnect a moment before the SIGTERM, as observed; else they stay connected,
     *              reading nothing, until the node closes them.
     */
    private void hostilePeerThenSigterm(final boolean leave) throws Exception
    {
        final Path secret = dir.resolve("cluster-secret");
        Files.writeString(secret, HexFormat.of().formatHex(MetaCluster.SECRET) + "\n");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        try (MetaCluster cluster = new MetaCluster(dir.resolve("meta")))
        {
            final RoleProcess node = RoleProcess.start("compute node", HEAP, Map.of(), List.of("compute-node",
                "--port", "0", "--metrics-port", "-1", "--meta", cluster.endpoint().toString(),
                "--cluster-secret-file", secret.toString(), "--provider", "shm",
                "--drain-timeout-ms", Long.toString(DRAIN_MS)),
                ReadyLines.COMPUTE_NODE, dir.resolve("compute-node.log"));
            final int port = Integer.parseInt(node.readyGroup(3));
            final List<Socket> hostile = new ArrayList<>();
            final List<Thread> writers = new ArrayList<>();
            try (RawResp steady = new RawResp(port))
            {
                assertEquals("+OK", steady.call("SET", "big", "v".repeat(VALUE_BYTES)));
                for (int i = 0; i < HOSTILE_CONNECTIONS; i++)
                {
                    final Socket socket = new Socket();
                    hostile.add(socket);
                    socket.connect(new InetSocketAddress("127.0.0.1", port));
                    writers.add(
                        ClientIsolationTest.pipeline(socket, ClientIsolationTest.request("GET", "big"), PIPELINED));
                }
                // as the observed client did: a moment for the node to take the GETs in before the peers go
                Thread.sleep(HOLD_MS);
                final SteadyView view = new SteadyView(steady);
                // its reply, if the node gives it soon, before the signal: a drain answers no request it has not read
                view.await(HOLD_MS);
                if (leave)
                {
                    CloseHelper.closeAll(hostile);
                    for (final Thread writer : writers)
                    {
                        writer.join(BOUND_MS);
                    }
                    Thread.sleep(200);
                }

                final long started = System.nanoTime();
                final int status = node.stop(BOUND_MS);
                final long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                final String seen = view.await(BOUND_MS);
                System.out.printf("SigtermTest: the process exited with %d %,d ms after SIGTERM (drain timeout " +
                    "%,d ms) with %d peers that pipelined %,d GETs of 64 KiB each, read none and %s; the " +
                    "well-behaved client, which sent a PING after %,d ms of them, saw %s%n", status, tookMs,
                    DRAIN_MS, HOSTILE_CONNECTIONS, PIPELINED, leave ? "left" : "stayed", HOLD_MS, seen);
                assertEquals(0, status, () -> "the process did not exit within " + BOUND_MS + " ms of SIGTERM " +
                    "(137: killed then); its log ends:\n" + node.logTail());
                assertTrue(tookMs < BOUND_MS, () -> "exit took " + tookMs + " ms");
            }
            finally
            {
                CloseHelper.quietCloseAll(hostile);
                node.kill();
            }
        }
    }

    /** The well-behaved client's view: a PING sent as the hostile peers are held, read on a thread of its own. */
    private static final class SteadyView
    {
        private final long sentNanos = System.nanoTime();
        private final AtomicReference<String> seen = new AtomicReference<>("no reply yet");
        private final Thread reader;

        SteadyView(final RawResp steady) throws IOException
        {
            steady.send("PING");
            reader = new Thread(() ->
            {
                try
                {
                    final String reply = steady.read();
                    seen.set(reply + " after " + TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - sentNanos) +
                        " us, then its connection " + (steady.closedByServer() ? "closed by the node" : "open"));
                }
                catch (final IOException ex)
                {
                    seen.set(ex.toString());
                }
            }, "steady-view");
            reader.setDaemon(true);
            reader.start();
        }

        String await(final long timeoutMs) throws InterruptedException
        {
            reader.join(timeoutMs);
            return seen.get();
        }
    }
}
