package io.dkv.compute;

import io.dkv.raas.RaasContext;
import io.dkv.raas.command.ClusterOptions;
import io.dkv.raas.meta.MetaDirectory;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code --port}, {@code --bind}, {@code --meta}, {@code --cluster-secret-file}, {@code --requirepass},
 * {@code --provider} and {@code --driver}: where a compute node serves RESP and how it joins the cluster; and
 * {@code --appendonly} and {@code --appendfsync}: what its writes' OK promises about the memory nodes' disks. Shared
 * as a picocli mixin by {@code ./dkv compute-node} and by {@code ./dkv autoscale}, which gives them to every node it
 * starts; a command that words their help for itself does so in its resource bundle, under the option's name without
 * dashes.
 */
public final class ComputeNodeOptions
{
    static final String PROVIDER_DEFAULT = "shm";

    @Option(names = "--port", defaultValue = "" + ComputeNodeConfiguration.PORT_DEFAULT,
        description = "Port of the RESP server; 0 takes a free one (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--bind", defaultValue = ComputeNodeConfiguration.BIND_DEFAULT,
        description = "Address the RESP server listens on (default: ${DEFAULT-VALUE}).")
    String bind;

    @Mixin
    final ClusterOptions cluster = new ClusterOptions();

    /** The command these options are mixed into, for its usage errors; null when parsed by hand. */
    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Option(names = "--driver", paramLabel = "NAME",
        description = "Attach to this host's standalone driver of that name (./dkv driver --name NAME; ./dkv up runs " +
            "one) as a compute node of its own, rather than start a driver in this process: joining then costs an " +
            "attach, not a NIC's start and a MetaServer link. The driver's MetaServer, secret and provider are used, " +
            "so --meta, --cluster-secret-file, --provider and --address are not needed.")
    String driver;

    @Option(names = "--requirepass", paramLabel = "PASS",
        description = "Password clients must give with AUTH (or HELLO AUTH) before any other command.")
    String requirePass;

    @Option(names = "--provider", defaultValue = PROVIDER_DEFAULT,
        description = "Verbs provider: shm, tcp, verbs (an RNIC) or auto (verbs where an RNIC is usable, else " +
            "shm) (default: ${DEFAULT-VALUE}).")
    String provider;

    // no default value here: left unset, the node may run with appendonly no over memory nodes without a disk, where
    // one given by the user fails the start (ComputeNodeContext.appendOnlyFallback)
    @Option(names = "--appendonly", paramLabel = "yes|no",
        description = "yes: each write tells its memory nodes, which keep it on disk as --appendfsync says (they " +
            "need --data-dir); no: memory only, nothing told, the cheapest, and a memory node that restarts comes " +
            "back without the writes. Left unset over a memory node without --data-dir, the node runs with no and " +
            "says so; given, it fails to start there. CONFIG SET appendonly changes it while the pool runs " +
            "(default: " + ComputeNodeConfiguration.APPENDONLY_DEFAULT + ").")
    String appendOnly;

    @Option(names = "--appendfsync", paramLabel = "always|everysec|no",
        description = "With --appendonly yes, what a write's OK promises. always: its memory nodes have the key on " +
            "disk (fsynced), a crash loses nothing acknowledged; costs a round trip to the node and its fsync per " +
            "write. everysec: they are told of it and write it to disk soon after, fsyncing at least once a second, " +
            "so a crash loses about the last second; costs one message per write, not waited for. no: nothing " +
            "told, as --appendonly no. CONFIG SET appendfsync changes it while the pool runs " +
            "(default: " + ComputeNodeConfiguration.APPENDFSYNC_DEFAULT + ").")
    String appendFsync;

    @Option(names = "--maxmemory", paramLabel = "bytes",
        description = "The pool's maxmemory, as redis writes it (100mb, 2gb, or bytes; 0: none): each memory node " +
            "hands out at most its share, by capacity, and a write past it answers OOM (maxmemory-policy " +
            "noeviction); reads and deletes go on. Set on every memory node as this node starts; left unset, the " +
            "pool keeps what it has. CONFIG SET maxmemory changes it while the pool runs.")
    String maxMemory;

    /** @return the RESP port; 0 for a free one. */
    public int port()
    {
        return port;
    }

    /** @return the address the RESP server listens on. */
    public String bind()
    {
        return bind;
    }

    /** @return the password clients must give with AUTH, or null when none is asked for. */
    public String requirePass()
    {
        return requirePass;
    }

    /** @return the name of the host's standalone driver the node attaches to, or null to start one of its own. */
    public String driver()
    {
        return driver;
    }

    /** @return the verbs provider's name. */
    public String provider()
    {
        return provider;
    }

    /** @return --appendonly as given, or null when it was not. */
    public String appendOnly()
    {
        return appendOnly;
    }

    /** @return --appendfsync as given, or null when it was not. */
    public String appendFsync()
    {
        return appendFsync;
    }

    /**
     * Fail, in one line naming the value and the accepted ones, when --appendonly or --appendfsync was given a value
     * it does not take: before anything starts.
     */
    public void requireDurability()
    {
        if (appendOnly != null && AppendFsync.parseYesNo(appendOnly) == null)
        {
            throw new IllegalArgumentException("--appendonly " + appendOnly + ": expected yes or no");
        }
        if (appendFsync != null && AppendFsync.parse(appendFsync) == null)
        {
            throw new IllegalArgumentException("--appendfsync " + appendFsync + ": expected one of " +
                AppendFsync.ACCEPTED);
        }
    }

    /**
     * Give the node the durability asked for: the options given, else the properties set
     * ({@link ComputeNodeConfiguration#APPENDONLY_PROP_NAME}, {@link ComputeNodeConfiguration#APPENDFSYNC_PROP_NAME}),
     * else appendonly yes with appendfsync everysec. When none was given either way, a memory node that keeps nothing
     * on disk turns appendonly off ({@link ComputeNodeContext#appendOnlyFallback}) instead of failing the start. The
     * pool's maxmemory goes with them where given.
     *
     * @return the context.
     */
    public ComputeNodeContext durability(final ComputeNodeContext context)
    {
        final boolean given = appendOnly != null || appendFsync != null || context.appendOnly() != null ||
            context.appendFsync() != null;
        if (appendOnly != null)
        {
            context.appendOnly(appendOnly);
        }
        else if (context.appendOnly() == null)
        {
            context.appendOnly(ComputeNodeConfiguration.APPENDONLY_DEFAULT);
        }
        if (appendFsync != null)
        {
            context.appendFsync(appendFsync);
        }
        else if (context.appendFsync() == null)
        {
            context.appendFsync(ComputeNodeConfiguration.APPENDFSYNC_DEFAULT);
        }
        if (maxMemory != null)
        {
            context.maxMemory(maxMemory);
        }
        return given ? context : context.appendOnlyFallback(true);
    }

    /**
     * Fail, in one line that says why, when --meta or the cluster secret is missing or the secret cannot be read
     * (unless the node attaches to a driver, whose they are): before anything starts, for the usage text would bury
     * it.
     */
    public void requireCluster()
    {
        if (driver != null)
        {
            // the driver's MetaServer and secret serve the node
            return;
        }
        if (mixee != null)
        {
            cluster.requireMeta(mixee.commandLine(), "the MetaServer endpoint(s) the node joins the cluster through");
            cluster.requireSecretFile(mixee.commandLine(), "the file with the cluster secret the MetaServer " +
                "authenticates RPCs with");
        }
        final Path secretFile = cluster.secretFile();
        if (!secretFile.toFile().canRead())
        {
            throw new IllegalArgumentException("--cluster-secret-file " + secretFile + (secretFile.toFile().exists() ?
                " cannot be read by this user" : " does not exist") + " (./dkv up writes one beside its cluster file)");
        }
    }

    /**
     * @param driver the concluded context of the driver the directory serves, whose clocks it takes.
     * @return the MetaServers given, authenticated with the cluster secret.
     */
    MetaDirectory metaDirectory(final RaasContext driver)
    {
        return new MetaDirectory(cluster.directoryContext().clocksOf(driver));
    }

    /**
     * @param servedPort the port to give in place of {@code --port} (a free one found for a node given 0).
     * @return these options as a compute node's command line takes them.
     */
    public List<String> arguments(final int servedPort)
    {
        final List<String> arguments = new ArrayList<>(List.of("--port", Integer.toString(servedPort), "--bind", bind));
        if (driver != null)
        {
            arguments.addAll(List.of("--driver", driver));
        }
        else
        {
            arguments.addAll(List.of("--provider", provider));
            arguments.addAll(cluster.arguments());
        }
        if (requirePass != null)
        {
            arguments.addAll(List.of("--requirepass", requirePass));
        }
        // only as given: a node left to its default may fall back to appendonly no where memory nodes keep no disk
        if (appendOnly != null)
        {
            arguments.addAll(List.of("--appendonly", appendOnly));
        }
        if (appendFsync != null)
        {
            arguments.addAll(List.of("--appendfsync", appendFsync));
        }
        if (maxMemory != null)
        {
            arguments.addAll(List.of("--maxmemory", maxMemory));
        }
        return arguments;
    }
}
