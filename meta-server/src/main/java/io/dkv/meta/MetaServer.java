package io.dkv.meta;

import io.dkv.agent.CountersFile;
import io.dkv.agent.CountersFileDescriptor;
import io.dkv.agent.ErrorFile;
import io.dkv.agent.ErrorLog;
import io.dkv.agent.IdleStrategies;
import io.dkv.agent.SystemCounters;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.meta.MembershipRecord;
import io.dkv.raas.meta.MetaEndpoint;
import io.dkv.raas.meta.MetaFrameAuthenticator;
import io.dkv.raas.meta.MetaRpcDescriptor;
import io.dkv.raas.meta.MetaTableDescriptor;
import io.dkv.verbs.Access;
import io.dkv.verbs.PortAddress;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.status.CountersManager;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The MetaServer: a RaaS application with a fixed node id and DC key (role
 * {@link NodeRecord#ROLE_META}) that keeps node records and region descriptors in registered
 * memory for nodes to read one-sided, takes writes as RPCs on service
 * {@link MetaRpcDescriptor#SERVICE}, keeps them in RocksDB, expires nodes whose lease ran out, and
 * replicates every write to a second MetaServer when one is configured.
 *
 * <p>Its endpoint ({@link MetaEndpoint}) is all a node needs to reach it; it is written to
 * {@code <data dir>/endpoint} and stays the same across restarts when the device address is fixed
 * (a tcp port, or the shm device id the server keeps in its store).
 */
public final class MetaServer implements AutoCloseable
{
    /** How the names of MetaServers' error files start; the node id follows. */
    public static final String ERROR_FILE_PREFIX = "meta-server-";

    /** Prefix of the name the tables are published under; the server's node id follows. */
    public static final String TABLES_NAME_PREFIX = "dkv.meta.tables.";
    public static final String ENDPOINT_FILE = "endpoint";

    private static final String DC_KEY_SETTING = "dcKey";
    private static final String SHM_DEVICE_SETTING = "shmDeviceId";

    private final MetaServerContext context;
    private final MetaStore store;
    private final MetaState state;
    private final Raas raas;
    private final RemoteRegion tables;
    private final RequestHandler handler;
    private final PeerLink peer;
    private final MetaService service;
    private final AgentRunner runner;
    /** The service agent's errors: counted and kept, in a file other processes read when the context names one. */
    private final ErrorFile errorFile;
    private final ErrorLog errorLog;
    /** Null when the context named no counters directory: the counters are in memory. */
    private final CountersFile countersFile;
    private final MetaServerCounters counters;
    private final MetaEndpoint endpoint;

    private MetaServer(final MetaServerContext context)
    {
        this.context = context.conclude();
        final Path dataDir = context.dataDir();
        try
        {
            Files.createDirectories(dataDir);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot create MetaServer data directory " + dataDir, ex);
        }
        store = MetaStore.open(dataDir.resolve("rocksdb"));
        errorFile = context.errorDirectory() == null ? null : ErrorFile.create(context.errorDirectory(),
            errorFileName(context.nodeId()), ErrorLog.IN_MEMORY_BYTES, context.epochClock());
        errorLog = errorFile == null ? ErrorLog.inMemory(context.epochClock()) : errorFile.errorLog();
        countersFile = context.countersDirectory() == null ? null : CountersFile.create(CountersFile.fileOf(
            context.countersDirectory(), errorFileName(context.nodeId())), CountersFileDescriptor.MAX_COUNTERS_DEFAULT,
            context.epochClock());
        final CountersManager countersManager = countersFile == null ?
            SystemCounters.inMemory(CountersFileDescriptor.MAX_COUNTERS_DEFAULT) : countersFile.manager();
        counters = new MetaServerCounters(countersManager);
        MetaState createdState = null;
        Raas startedRaas = null;
        try
        {
            final long servingSince = context.epochClock().time();
            createdState = new MetaState(context.nodeId(), store, servingSince * 1000, context.nanoClock());
            state = createdState;
            state.load(servingSince, context.leaseMs(), context.replicas(), context.founders());

            startedRaas = RaasDriver.start(driverContext().countersManager(countersManager),
                new ServerDirectory(state, context.peer()));
            raas = startedRaas;

            final long length = MetaTableDescriptor.regionLength(context.nodeSlots(), context.regionSlots());
            // nodes may only read the tables: registered for remote READ alone, the NIC refuses anything else
            final RemoteRegion owned = raas.malloc(raas.self().id(), length, TABLES_NAME_PREFIX + context.nodeId(),
                Access.REMOTE_READ);
            state.attachTables(new MetaTables(raas.localMemory(owned), context.nodeSlots(), context.regionSlots(),
                context.nodeId(), state.epoch()));
            tables = owned.withLayoutVersion(MetaTableDescriptor.LAYOUT_VERSION);
            state.putRegion(tables);

            handler = new RequestHandler(state, context.nodeId(), context.peer() == null ? 0 : context.peer().nodeId(),
                context.leaseMs(), servingSince, context.epochClock(), tables,
                raas.allocateBuffer(MetaRpcDescriptor.MAX_FRAME_LENGTH),
                raas.allocateBuffer(MetaRpcDescriptor.MAX_FRAME_LENGTH),
                new MetaFrameAuthenticator(context.clusterSecret(), context.epochClock(), context.authWindowMs()),
                counters);
            peer = context.peer() == null ? null : new PeerLink(raas, context.peer(), state, servingSince, context);
            service = new MetaService(raas, raas.listen(MetaRpcDescriptor.SERVICE), handler, peer, state, context,
                counters);
            runner = new AgentRunner(IdleStrategies.parse(context.idleStrategy()), errorLog,
                counters.get(MetaServerCounter.ERRORS), service);
            AgentRunner.startOnThread(runner);
            endpoint = MetaEndpoint.of(raas.self());
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietCloseAll(startedRaas, errorFile, countersFile);
            store.close();
            throw ex;
        }
    }

    /** @return the name of a MetaServer's error file, without its ending; its counters file's too. */
    public static String errorFileName(final long nodeId)
    {
        return ERROR_FILE_PREFIX + nodeId;
    }

    /**
     * Start a MetaServer: open its store, start its driver, fill its tables, and, when a peer is
     * configured and answers, take the peer's state if the peer has served longer.
     */
    public static MetaServer start(final MetaServerContext context)
    {
        final MetaServer server = new MetaServer(context);
        try
        {
            server.awaitCatchUp();
            server.settleReplicas();
            server.writeEndpoint();
        }
        catch (final RuntimeException ex)
        {
            server.close();
            throw ex;
        }
        return server;
    }

    /**
     * The driver's settings with what the server's own settings decide of them: its node id, role, DC key and (on
     * shm) device id, the last two kept in the store so that a restart keeps its endpoint.
     */
    private RaasContext driverContext()
    {
        final RaasContext raasContext = context.raas()
            .nodeId(context.nodeId())
            .role(NodeRecord.ROLE_META)
            .dcKey(keptSetting(DC_KEY_SETTING, context.dcKey()));
        // one setting governs the process: the driver runs on the server's clocks unless given its own
        if (raasContext.epochClock() == null)
        {
            raasContext.epochClock(context.epochClock());
        }
        if (raasContext.nanoClock() == null)
        {
            raasContext.nanoClock(context.nanoClock());
        }
        if (PortAddress.SHM.equals(raasContext.verbs().provider()))
        {
            raasContext.verbs().shmDeviceId(keptSetting(SHM_DEVICE_SETTING, raasContext.verbs().shmDeviceId()));
        }
        return raasContext;
    }

    /** The setting as given, else as stored, else drawn now; kept in the store either way. */
    private long keptSetting(final String key, final long given)
    {
        long value = given != 0 ? given : store.setting(key);
        while (value == 0)
        {
            value = ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
        }
        if (value != store.setting(key))
        {
            store.setting(key, value);
        }
        return value;
    }

    private void awaitCatchUp()
    {
        if (peer == null)
        {
            return;
        }
        final NanoClock clock = context.nanoClock();
        final long deadline = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(context.catchUpTimeoutMs());
        while (!peer.catchUpSettled() && handler.snapshotsInstalled() == 0 && clock.nanoTime() - deadline < 0)
        {
            try
            {
                Thread.sleep(5);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * A replica count named at start changes the kept one; applied after the peer's state was taken (which carries
     * the peer's count), by the service's thread so that the peer gets it too.
     */
    private void settleReplicas()
    {
        if (!context.replicasNamed())
        {
            return;
        }
        service.replicas(context.replicas());
        // the service's thread turns all the time: it applies the count on its next turn
        while (!service.replicasSettled() && !runner.isClosed())
        {
            try
            {
                Thread.sleep(1);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void writeEndpoint()
    {
        final Path file = context.dataDir().resolve(ENDPOINT_FILE);
        final Path temporary = context.dataDir().resolve(ENDPOINT_FILE + ".tmp");
        try
        {
            Files.writeString(temporary, endpoint + System.lineSeparator(), StandardCharsets.UTF_8);
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot write the MetaServer endpoint to " + file, ex);
        }
    }

    /** @return what nodes need to reach this server. */
    public MetaEndpoint endpoint()
    {
        return endpoint;
    }

    /** @return the server's driver. */
    public Raas raas()
    {
        return raas;
    }

    /** @return the table region, as the bootstrap hands it to nodes. */
    public RemoteRegion tables()
    {
        return tables;
    }

    /** @return the table epoch now. */
    public long epoch()
    {
        return state.epoch();
    }

    /** @return the memory tier's membership as this server holds it. */
    public Membership membership()
    {
        return state.membership().toMembership();
    }

    /** @return the membership with each member's incarnation, as this server holds it. */
    public MembershipRecord membershipRecord()
    {
        return state.membership();
    }

    /** @return the founders of the store, or null while it is not founded (see {@link MetaServerContext#founders}). */
    public long[] foundedBy()
    {
        return state.foundedBy();
    }

    /** @return who founded the store, or who may found it, in words. */
    public String founding()
    {
        return state.founding();
    }

    /** @return the node's record as this server holds it, or null. */
    public NodeRecord node(final long nodeId)
    {
        return state.node(nodeId);
    }

    /** @return the region of that name as this server holds it, or null. */
    public RemoteRegion region(final String name)
    {
        return state.region(name);
    }

    /** @return RPC frames this server has handled, well-formed or not. */
    public long requestsHandled()
    {
        return handler.requestsHandled();
    }

    /** @return requests refused as not authentic (another cluster secret, a stale timestamp, a replayed request id). */
    public long unauthenticatedRequests()
    {
        return handler.unauthenticatedRequests();
    }

    /** @return authentic requests refused for changing a node's records without its token. */
    public long forbiddenRequests()
    {
        return handler.forbiddenRequests();
    }

    /** @return the node's token as this server holds it, or null (for tests: it never leaves the MetaServers). */
    byte[] token(final long nodeId)
    {
        return state.token(nodeId);
    }

    /** @return full state transfers this server received from its peer. */
    public long snapshotsInstalled()
    {
        return handler.snapshotsInstalled();
    }

    /** @return full state transfers this server sent to its peer. */
    public long snapshotsSent()
    {
        return peer == null ? 0 : peer.snapshotsSent();
    }

    /** @return true when a peer is configured and its link is up. */
    public boolean peerUp()
    {
        return peer != null && peer.isUp();
    }

    MetaState state()
    {
        return state;
    }

    /** @return the service agent's errors, counted and kept. */
    public ErrorLog errorLog()
    {
        return errorLog;
    }

    public void close()
    {
        CloseHelper.quietCloseAll(runner, raas);
        store.close();
        if (errorLog.errors() > 0)
        {
            System.err.print("dkv MetaServer recorded " + errorLog.errors() + " error(s) in its service agent" +
                (errorFile == null ? "" : " (kept in " + errorFile.file() + ")") + ":\n" + errorLog.describe());
        }
        CloseHelper.quietCloseAll(errorFile, countersFile);
    }

    /** @return the server's counter of that descriptor (its driver's are {@code RaasDriver.counters()}). */
    public long counter(final MetaServerCounter counter)
    {
        return counters.get(counter).get();
    }
}
