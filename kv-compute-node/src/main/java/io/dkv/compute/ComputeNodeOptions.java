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
 * {@code --provider} and {@code --driver}: where a compute node serves RESP and how it joins the cluster. Shared as a
 * picocli mixin by {@code ./dkv compute-node} and by {@code ./dkv autoscale}, which gives them to every node it starts;
 * a command that words their help for itself does so in its resource bundle, under the option's name without dashes.
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
        return arguments;
    }
}
