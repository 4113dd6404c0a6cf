package io.dkv.load.check.harness;

import io.dkv.load.check.harness.NetworkNamespaces.CommandResult;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;

/**
 * Test hosts on one machine: network namespaces, each with one interface on a bridge that lives in
 * a namespace of its own, so the hosts reach each other over a (virtual) network and nothing else
 * does. A partition between two groups of hosts is a blackhole route on each side for the other
 * side's addresses; healing deletes the routes. Everything is removed on {@link #close()}, and
 * namespaces left by runs whose process died are removed on the next {@link #create}.
 */
public final class TestHosts implements AutoCloseable
{
    private static final String SUBNET = "10.231.0.";
    private static final Pattern OUR_NAMESPACE = Pattern.compile("dkvc-(\\d+)-\\w+");

    private final String ip;
    private final String bridgeNamespace;
    private final List<String> namespaces;
    private final List<String> created = new ArrayList<>();

    private TestHosts(final String ip, final String bridgeNamespace, final List<String> namespaces)
    {
        this.ip = ip;
        this.bridgeNamespace = bridgeNamespace;
        this.namespaces = namespaces;
    }

    /**
     * @return why test hosts cannot be made on this machine, or null when they can be tried.
     */
    static String unavailableReason()
    {
        return NetworkNamespaces.unavailableReason();
    }

    /**
     * Make {@code count} hosts, addresses {@code 10.231.0.1} upwards.
     *
     * @throws IllegalStateException when the machine refuses (the message says which command and why).
     */
    static TestHosts create(final int count)
    {
        final String ip = NetworkNamespaces.ipBinary();
        NetworkNamespaces.removeThoseOfDeadRuns(ip, OUR_NAMESPACE);
        final long pid = ProcessHandle.current().pid();
        final List<String> namespaces = new ArrayList<>();
        for (int i = 1; i <= count; i++)
        {
            namespaces.add("dkvc-" + pid + "-h" + i);
        }
        final TestHosts hosts = new TestHosts(ip, "dkvc-" + pid + "-net", namespaces);
        try
        {
            hosts.build();
            return hosts;
        }
        catch (final RuntimeException ex)
        {
            hosts.close();
            throw ex;
        }
    }

    private void build()
    {
        addNamespace(bridgeNamespace);
        run("-n", bridgeNamespace, "link", "add", "br0", "type", "bridge");
        run("-n", bridgeNamespace, "link", "set", "br0", "up");
        for (int i = 0; i < namespaces.size(); i++)
        {
            final String namespace = namespaces.get(i);
            final String port = "port" + (i + 1);
            addNamespace(namespace);
            // created inside the namespaces, so the names cannot clash with the machine's interfaces
            run("link", "add", port, "netns", bridgeNamespace, "type", "veth", "peer", "name", "eth0", "netns",
                namespace);
            run("-n", bridgeNamespace, "link", "set", port, "master", "br0");
            run("-n", bridgeNamespace, "link", "set", port, "up");
            run("-n", namespace, "addr", "add", address(i) + "/24", "dev", "eth0");
            run("-n", namespace, "link", "set", "eth0", "up");
            run("-n", namespace, "link", "set", "lo", "up");
        }
    }

    int size()
    {
        return namespaces.size();
    }

    /** @return the address of host {@code host} (from 0). */
    String address(final int host)
    {
        return SUBNET + (host + 1);
    }

    /** @return the command prefix that runs a program on host {@code host}. */
    List<String> exec(final int host)
    {
        return List.of(ip, "netns", "exec", namespaces.get(host));
    }

    /**
     * Cut the hosts in two random groups apart.
     *
     * @return the two groups, host numbers from 0: the first side, then the other.
     */
    Partition partition(final Random random)
    {
        return partition(random, false);
    }

    /**
     * Cut the hosts in two random groups apart, both ways or one way only.
     *
     * @param oneWay true: the first side's packets to the other are dropped (a blackhole route on the first side
     *               only), while the other side's still arrive; this kernel has neither the netfilter nor the tc
     *               classifiers that would drop them on the way, and a route drops them before they leave.
     * @return the two groups, host numbers from 0: the first side, then the other.
     */
    public Partition partition(final Random random, final boolean oneWay)
    {
        final List<Integer> sideA = new ArrayList<>();
        final List<Integer> sideB = new ArrayList<>();
        while (sideA.isEmpty() || sideB.isEmpty())
        {
            sideA.clear();
            sideB.clear();
            for (int host = 0; host < namespaces.size(); host++)
            {
                (random.nextBoolean() ? sideA : sideB).add(host);
            }
        }
        for (final int a : sideA)
        {
            for (final int b : sideB)
            {
                run("-n", namespaces.get(a), "route", "add", "blackhole", address(b) + "/32");
                if (!oneWay)
                {
                    run("-n", namespaces.get(b), "route", "add", "blackhole", address(a) + "/32");
                }
            }
        }
        return new Partition(List.copyOf(sideA), List.copyOf(sideB), oneWay);
    }

    /** Undo a partition: every host reaches every other again. */
    public void heal(final Partition partition)
    {
        for (final int a : partition.sideA())
        {
            for (final int b : partition.sideB())
            {
                run("-n", namespaces.get(a), "route", "del", "blackhole", address(b) + "/32");
                if (!partition.oneWay())
                {
                    run("-n", namespaces.get(b), "route", "del", "blackhole", address(a) + "/32");
                }
            }
        }
    }

    public void close()
    {
        for (int i = created.size() - 1; i >= 0; i--)
        {
            NetworkNamespaces.run(ip, "netns", "del", created.get(i));
        }
        created.clear();
    }

    /**
     * Two groups of hosts that cannot reach each other, or where only the second cannot be reached from the first.
     *
     * @param oneWay true when only the first side's packets to the second are dropped.
     */
    public record Partition(List<Integer> sideA, List<Integer> sideB, boolean oneWay)
    {
    }

    private void addNamespace(final String namespace)
    {
        run("netns", "add", namespace);
        created.add(namespace);
    }

    private void run(final String... arguments)
    {
        final List<String> command = new ArrayList<>();
        command.add(ip);
        command.addAll(List.of(arguments));
        final CommandResult result = NetworkNamespaces.run(command.toArray(String[]::new));
        if (result.exitCode() != 0)
        {
            throw new IllegalStateException("'" + String.join(" ", command) + "' failed (" + result.exitCode() + "): " +
                result.output().strip());
        }
    }
}
