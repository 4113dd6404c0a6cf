package io.dkv.meta.command;

import io.dkv.clock.Clocks;
import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.command.ClusterOptions;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.meta.ClusterSecret;
import io.dkv.raas.meta.MetaDirectoryConfiguration;
import io.dkv.raas.meta.MetaEndpoint;
import io.dkv.raas.meta.MetaFrameAuthenticator;
import io.dkv.raas.meta.MetaRpcClient;
import io.dkv.raas.meta.MetaRpcDescriptor;
import io.dkv.verbs.VerbsContext;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * What the {@code dkv meta} subcommands that talk to a running MetaServer share: a driver of their
 * own that registers nowhere, one connection to the server and RPCs sealed with the cluster secret.
 */
abstract class MetaServerCall implements Callable<Integer>
{
    @Spec
    CommandSpec spec;

    @Mixin
    ClusterOptions cluster;

    @Option(names = "--address", defaultValue = "127.0.0.1:0",
        description = "For tcp, the ip:port this command's NIC engine listens on (default: ${DEFAULT-VALUE}).")
    String address;

    public final Integer call()
    {
        cluster.requireMeta(spec.commandLine(), "the endpoint of the MetaServer to call");
        if (cluster.meta().size() > 1)
        {
            throw new ParameterException(spec.commandLine(), "--meta " + String.join(",", cluster.meta()) +
                " names " + cluster.meta().size() + " MetaServers: a call goes to one");
        }
        cluster.requireSecretFile(spec.commandLine(), "a caller proves itself with the cluster secret");
        final byte[] key;
        final MetaEndpoint endpoint;
        try
        {
            key = ClusterSecret.read(cluster.secretFile());
            endpoint = cluster.endpoints().getFirst();
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ParameterException(spec.commandLine(), ex.getMessage());
        }
        final StaticDirectory directory = new StaticDirectory();
        directory.register(endpoint.toNodeRecord());
        final RaasContext context = new RaasContext()
            .verbs(new VerbsContext().provider(endpoint.address().provider()).tcpAddress(address));
        final String done;
        try (Raas raas = RaasDriver.start(context, directory))
        {
            final Connection connection =
                raas.connect(endpoint.nodeId(), MetaRpcDescriptor.SERVICE, Flags.ADAPTIVE, null);
            final MetaRpcClient client =
                new MetaRpcClient(connection, raas.allocateBuffer(MetaRpcDescriptor.MAX_FRAME_LENGTH),
                raas.allocateBuffer(MetaRpcDescriptor.MAX_FRAME_LENGTH),
                Duration.ofMillis(MetaDirectoryConfiguration.RPC_TIMEOUT_MS_DEFAULT),
                new MetaFrameAuthenticator(key, Clocks.epochClock(),
                    MetaDirectoryConfiguration.AUTH_WINDOW_MS_DEFAULT));
            done = call(raas, client);
            connection.close();
        }
        spec.commandLine().getOut().println(done);
        spec.commandLine().getOut().flush();
        return 0;
    }

    /**
     * Do the command's work with the server.
     *
     * @return what to print once done.
     */
    abstract String call(Raas raas, MetaRpcClient client);
}
