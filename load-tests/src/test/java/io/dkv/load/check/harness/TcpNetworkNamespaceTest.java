package io.dkv.load.check.harness;

import io.dkv.load.check.harness.NetworkNamespaces.CommandResult;
import io.dkv.verbs.ChildProcess;
import io.dkv.verbs.PortAddress;
import io.dkv.verbs.VerbsPeer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tcp provider between two hosts, as far as one machine can fake them: two network namespaces
 * joined by a veth pair, one child JVM in each, so that every byte crosses a real (virtual) link
 * between addresses that are not loopback. RC READ, WRITE, atomics and SEND/RECV go both ways, and
 * a DC initiator in one namespace reaches a DC target in the other.
 */
class TcpNetworkNamespaceTest
{
    private static final int REGION_BYTES = 4 << 20;
    private static final int MAX_SEND_SIZE = 1 << 20;
    private static final int[] SIZES = { 1, 4096, 65_537, 300_000 };
    private static final long WRITE_AREA = 0;
    private static final long READ_AREA = 1 << 20;
    private static final long RECV_AREA = 2 << 20;
    private static final long SOURCE_AREA = 3 << 20;
    private static final long RESULT_OFFSET = REGION_BYTES - 128;
    private static final long WORD_OFFSET = REGION_BYTES - 64;
    private static final long DC_KEY = 0x5eed_d0c5_0000_0001L;
    private static final Pattern NAMESPACE_NAME = Pattern.compile("dkvt-(\\d+)-[ab]");

    /** A child JVM's device as its peer sees it. */
    private record Peer(ChildProcess process, PortAddress address, long regionAddress, int rkey)
    {
    }

    @Test
    @Timeout(60)
    void rcAndDcRequestsCrossBetweenJvmsInTwoNetworkNamespaces()
    {
        final String ip = NetworkNamespaces.ipBinary();
        skipIf(NetworkNamespaces.unavailableReason());

        NetworkNamespaces.removeThoseOfDeadRuns(ip, NAMESPACE_NAME);
        final long pid = ProcessHandle.current().pid();
        final String nsA = "dkvt-" + pid + "-a";
        final String nsB = "dkvt-" + pid + "-b";
        final List<String> created = new ArrayList<>();
        try
        {
            final CommandResult add = NetworkNamespaces.run(ip, "netns", "add", nsA);
            skipIf(add.exitCode() == 0 ? null :
                "'ip netns add' failed (" + add.exitCode() + "): " + add.output().strip());
            created.add(nsA);
            require(ip, "netns", "add", nsB);
            created.add(nsB);

            final int octet = freeSubnetOctet(ip, pid);
            final String addressA = "10.213." + octet + ".1";
            final String addressB = "10.213." + octet + ".2";
            // created inside the namespaces, so the names cannot clash with the host's interfaces
            require(ip, "link", "add", "dkva", "netns", nsA, "type", "veth", "peer", "name", "dkvb", "netns", nsB);
            configure(ip, nsA, "dkva", addressA);
            configure(ip, nsB, "dkvb", addressB);
            awaitCarrier(ip, nsA, "dkva");
            awaitCarrier(ip, nsB, "dkvb");

            try (ChildProcess a =
                ChildProcess.start("peer in " + nsA, List.of(ip, "netns", "exec", nsA), VerbsPeer.class);
                ChildProcess b =
                    ChildProcess.start("peer in " + nsB, List.of(ip, "netns", "exec", nsB), VerbsPeer.class))
            {
                final Peer peerA = open(a, addressA);
                final Peer peerB = open(b, addressB);
                final int qpnA = Integer.parseInt(a.call("rc")[0]);
                final int qpnB = Integer.parseInt(b.call("rc")[0]);
                a.call("connect " + peerB.address() + " " + qpnB);
                b.call("connect " + peerA.address() + " " + qpnA);

                rcRequestsMoveTheRightBytes(peerA, peerB, 1_000);
                rcRequestsMoveTheRightBytes(peerB, peerA, 2_000);
                dcRequestsReachTheTarget(peerA, peerB, 3_000);

                // each side wrote, sent and served reads of every size to the other at least once
                final long minimumBytes = 3L * IntStream.of(SIZES).sum();
                assertReceivedAtLeast(ip, nsA, "dkva", minimumBytes);
                assertReceivedAtLeast(ip, nsB, "dkvb", minimumBytes);
            }
        }
        finally
        {
            // a timed-out test is interrupted, which must not keep the namespaces from going away
            final boolean interrupted = Thread.interrupted();
            for (final String ns : created)
            {
                final CommandResult deleted = NetworkNamespaces.run(ip, "netns", "del", ns);
                if (deleted.exitCode() != 0)
                {
                    System.err.println("could not delete network namespace " + ns + ": " + deleted.output());
                }
            }
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static Peer open(final ChildProcess child, final String address)
    {
        final String[] opened = child.call("open tcp " + address + ":0 " + REGION_BYTES + " " + MAX_SEND_SIZE);
        final PortAddress portAddress = PortAddress.parse(opened[0]);
        assertEquals(address, portAddress.tcpSocketAddress().getAddress().getHostAddress(), child::describe);
        return new Peer(child, portAddress, Long.parseLong(opened[1]), Integer.parseInt(opened[2]));
    }

    private static void rcRequestsMoveTheRightBytes(final Peer initiator, final Peer target, final long seed)
    {
        final ChildProcess from = initiator.process();
        final ChildProcess to = target.process();
        for (final int size : SIZES)
        {
            from.call("fill " + SOURCE_AREA + " " + size + " " + (seed + size));
            from.call(post("rc", "RDMA_WRITE", SOURCE_AREA, size, target.regionAddress() + WRITE_AREA, target.rkey(), 0,
                0));
            to.call("check " + WRITE_AREA + " " + size + " " + (seed + size));

            to.call("fill " + READ_AREA + " " + size + " " + (seed + size + 1));
            from.call(post("rc", "RDMA_READ", READ_AREA, size, target.regionAddress() + READ_AREA, target.rkey(), 0,
                0));
            from.call("check " + READ_AREA + " " + size + " " + (seed + size + 1));

            to.call("recv rc " + RECV_AREA + " " + size);
            from.call("fill " + SOURCE_AREA + " " + size + " " + (seed + size + 2));
            from.call(post("rc", "SEND", SOURCE_AREA, size, 0, 0, 0, 0));
            final String[] received = to.call("await-recv");
            assertEquals(size + " RECV", received[0] + " " + received[1], to::describe);
            to.call("check " + RECV_AREA + " " + size + " " + (seed + size + 2));
        }

        final long word = target.regionAddress() + WORD_OFFSET;
        final int rkey = target.rkey();
        // an addend beyond 32 bits shows the whole 64-bit word takes part
        final long addend = 1L << 40;
        to.call("set-word " + WORD_OFFSET + " 1000");
        assertOriginal(1000, from.call(post("rc", "ATOMIC_FETCH_AND_ADD", RESULT_OFFSET, 8, word, rkey, addend, 0)),
            from);
        assertOriginal(addend + 1000, to.call("word " + WORD_OFFSET), to);
        assertOriginal(addend + 1000,
            from.call(post("rc", "ATOMIC_CMP_AND_SWP", RESULT_OFFSET, 8, word, rkey, addend + 1000, -7)), from);
        assertOriginal(-7, to.call("word " + WORD_OFFSET), to);
        assertOriginal(-7, from.call(post("rc", "ATOMIC_CMP_AND_SWP", RESULT_OFFSET, 8, word, rkey, 1000, 9)), from);
        assertOriginal(-7, to.call("word " + WORD_OFFSET), to);
    }

    private static void dcRequestsReachTheTarget(final Peer initiator, final Peer target, final long seed)
    {
        final ChildProcess from = initiator.process();
        final ChildProcess to = target.process();
        final int dctNumber = Integer.parseInt(to.call("dct " + DC_KEY)[0]);
        from.call("dci " + target.address() + " " + dctNumber + " " + DC_KEY);

        final int small = 4096;
        final int large = 300_000;
        to.call("recv srq " + RECV_AREA + " " + small);
        to.call("recv srq " + (RECV_AREA + small) + " " + large);
        from.call("fill " + SOURCE_AREA + " " + small + " " + seed);
        from.call(post("dc", "SEND", SOURCE_AREA, small, 0, 0, 0, 0));
        assertEquals(small + " RECV", String.join(" ", to.call("await-recv")), to::describe);
        to.call("check " + RECV_AREA + " " + small + " " + seed);
        from.call("fill " + SOURCE_AREA + " " + large + " " + (seed + 1));
        from.call(post("dc", "SEND", SOURCE_AREA, large, 0, 0, 0, 0));
        assertEquals(large + " RECV", String.join(" ", to.call("await-recv")), to::describe);
        to.call("check " + (RECV_AREA + small) + " " + large + " " + (seed + 1));

        from.call("fill " + SOURCE_AREA + " " + large + " " + (seed + 2));
        from.call(post("dc", "RDMA_WRITE", SOURCE_AREA, large, target.regionAddress() + WRITE_AREA, target.rkey(), 0,
            0));
        to.call("check " + WRITE_AREA + " " + large + " " + (seed + 2));

        to.call("fill " + READ_AREA + " " + large + " " + (seed + 3));
        from.call(post("dc", "RDMA_READ", READ_AREA, large, target.regionAddress() + READ_AREA, target.rkey(), 0, 0));
        from.call("check " + READ_AREA + " " + large + " " + (seed + 3));

        to.call("set-word " + WORD_OFFSET + " 41");
        assertOriginal(41, from.call(post(
            "dc", "ATOMIC_FETCH_AND_ADD", RESULT_OFFSET, 8, target.regionAddress() + WORD_OFFSET, target.rkey(), 1, 0)),
            from);
        assertOriginal(42, to.call("word " + WORD_OFFSET), to);
    }

    private static void assertReceivedAtLeast(final String ip, final String ns, final String device,
        final long minimumBytes)
    {
        final String counter =
            require(ip, "netns", "exec", ns, "cat", "/sys/class/net/" + device + "/statistics/rx_bytes");
        final long received = Long.parseLong(counter.strip());
        assertTrue(received >= minimumBytes,
            () -> device + " in " + ns + " received " + received + " bytes, the traffic needs at least " +
            minimumBytes);
    }

    private static String post(
        final String via,
        final String opcode,
        final long localOffset,
        final int length,
        final long remoteAddress,
        final int rkey,
        final long compareAdd,
        final long swap)
    {
        return "post " + via + " " + opcode + " " + localOffset + " " + length + " " + remoteAddress + " " + rkey +
            " " + compareAdd + " " + swap;
    }

    private static void assertOriginal(final long expected, final String[] reply, final ChildProcess child)
    {
        assertEquals(expected, Long.parseLong(reply[0]), child::describe);
    }

    private static void skipIf(final String reason)
    {
        if (reason != null)
        {
            System.out.println("skipping " + TcpNetworkNamespaceTest.class.getSimpleName() + ": " + reason);
            Assumptions.assumeTrue(false, reason);
        }
    }

    /**
     * The namespaces are fresh, so their addresses cannot collide with anything; the subnet still
     * avoids any the host itself uses, so that captures and logs on the host stay unambiguous.
     */
    private static int freeSubnetOctet(final String ip, final long pid)
    {
        final String hostAddresses = require(ip, "-4", "-o", "addr", "show");
        for (int i = 0; i < 256; i++)
        {
            final int octet = (int)((pid + i) % 256);
            if (!hostAddresses.contains(" 10.213." + octet + "."))
            {
                return octet;
            }
        }
        throw new IllegalStateException("the host uses every subnet of 10.213.0.0/16: " + hostAddresses);
    }

    private static void configure(final String ip, final String ns, final String device, final String address)
    {
        require(ip, "-n", ns, "link", "set", "lo", "up");
        require(ip, "-n", ns, "addr", "add", address + "/30", "dev", device);
        require(ip, "-n", ns, "link", "set", device, "up");
    }

    private static void awaitCarrier(final String ip, final String ns, final String device)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        String state;
        while (!(state = require(ip, "-n", ns, "-o", "link", "show", "dev", device)).contains("LOWER_UP"))
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError(device + " in " + ns + " did not come up: " + state);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    private static String require(final String... command)
    {
        final CommandResult result = NetworkNamespaces.run(command);
        if (result.exitCode() != 0)
        {
            throw new AssertionError(String.join(" ", command) + " exited with " + result.exitCode() + ": " +
                result.output());
        }
        return result.output();
    }
}
