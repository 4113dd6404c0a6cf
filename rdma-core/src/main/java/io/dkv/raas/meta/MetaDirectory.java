package io.dkv.raas.meta;

import io.dkv.raas.Directory;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import io.dkv.raas.RemoteRegion;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.NanoClock;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * A directory kept by one or two MetaServers. Lookups are one-sided READs of the MetaServer's
 * tables, cached; the cache is dropped when the table epoch moves (checked with one 16-byte READ
 * at most every {@link MetaDirectoryContext#epochCheckMs()}, and at once after
 * {@link #invalidate}). Writes (register, publish, withdraw) and lease renewals are RPCs; a
 * scheduled task renews the lease and, when the MetaServer forgot this node (it expired, or the
 * server lost it), registers it again with the regions it published.
 *
 * <p>Reads and RPCs go to the first MetaServer that answers; when it fails they go to the other,
 * and the first is tried again every {@link MetaDirectoryContext#relinkMs()}. A cached record is
 * safe to use after its node restarted: requests to it carry the old DC key, which the node's new
 * incarnation (or another node at its address) refuses, and the failure invalidates the entry.
 *
 * <p>Every RPC is sealed with the cluster secret, and every change to this node's records carries its
 * token ({@link MetaDirectoryContext#nodeToken}). While the MetaServer holds a live record of this node
 * id under another token (this node crashed and came back without the token it had), registering is
 * refused; it is tried again until that record's lease lapses.
 *
 * <p>One directory serves one driver.
 */
public final class MetaDirectory implements Directory
{
    private static final System.Logger LOG = System.getLogger(MetaDirectory.class.getName());
    private final MetaDirectoryContext context;
    private final NanoClock nanoClock;
    private final MetaServerLink[] links;
    private final ReentrantLock io = new ReentrantLock();
    private final Object cacheLock = new Object();
    private final Long2ObjectHashMap<NodeRecord> nodeCache = new Long2ObjectHashMap<>();
    private final HashMap<String, RemoteRegion> regionCache = new HashMap<>();
    private final Map<String, RemoteRegion> published = new ConcurrentHashMap<>();
    /** Nodes of the applications attached to this directory's driver, by id: renewed with the driver's own. */
    private final Map<Long, NodeRecord> hosted = new ConcurrentHashMap<>();
    /** Regions to publish again since the MetaServer forgot their node, by name; held under io. */
    private final Set<String> owedRegions = new LinkedHashSet<>();
    private final AtomicLong tableLookups = new AtomicLong();
    private final AtomicLong epochReads = new AtomicLong();
    private final long epochCheckNanos;
    private final long relinkNanos;
    private final Duration rpcTimeout;
    /**
     * Made on a thread of its own: the first HMAC of a process loads the JDK's security providers, 50-60 ms of a
     * compute node's join on 2 cores, and nothing needs it until the first link opens, after the NIC is up.
     */
    private final FutureTask<MetaFrameAuthenticator> authenticator;
    private final byte[] token;
    private volatile boolean epochCheckDue = true;
    private volatile long nextEpochCheckNanos;
    private long knownEpoch;
    private int preferred = -1;
    private Raas raas;
    private MetaSegments buffers;
    private ScheduledExecutorService heartbeats;
    private volatile boolean attached;
    private volatile NodeRecord self;
    private long renewalPeriodMs;
    private volatile long leaseExpiry;
    private volatile String lastHeartbeatFailure;

    public MetaDirectory(final MetaDirectoryContext context)
    {
        this.context = context.conclude();
        this.nanoClock = context.nanoClock();
        final List<MetaEndpoint> endpoints = context.endpoints();
        this.links = new MetaServerLink[endpoints.size()];
        for (int i = 0; i < links.length; i++)
        {
            links[i] = new MetaServerLink(endpoints.get(i), nanoClock);
        }
        this.epochCheckNanos = TimeUnit.MILLISECONDS.toNanos(context.epochCheckMs());
        this.relinkNanos = TimeUnit.MILLISECONDS.toNanos(context.relinkMs());
        this.rpcTimeout = Duration.ofMillis(context.rpcTimeoutMs());
        this.authenticator = new FutureTask<>(() ->
            new MetaFrameAuthenticator(context.clusterSecret(), context.epochClock(), context.authWindowMs()));
        Thread.ofPlatform().daemon().name("dkv-meta-authenticator").start(authenticator);
        this.token = context.nodeToken() != null ? context.nodeToken() : newToken();
    }

    private MetaFrameAuthenticator authenticator()
    {
        try
        {
            return authenticator.get();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new RaasException("interrupted while the MetaServer frame authenticator was made", ex);
        }
        catch (final ExecutionException ex)
        {
            if (ex.getCause() instanceof RuntimeException failure)
            {
                throw failure;
            }
            throw new IllegalStateException("cannot make the MetaServer frame authenticator", ex.getCause());
        }
    }

    private static byte[] newToken()
    {
        final byte[] token = new byte[MetaRpcDescriptor.TOKEN_LENGTH];
        new SecureRandom().nextBytes(token);
        return token;
    }

    /**
     * @return a directory of the MetaServers at these endpoints, authenticated with the secret in this file,
     * with the other settings as configured.
     */
    public static MetaDirectory of(final java.nio.file.Path clusterSecretFile, final MetaEndpoint... endpoints)
    {
        return new MetaDirectory(new MetaDirectoryContext().clusterSecretFile(clusterSecretFile).endpoints(endpoints));
    }

    // ---------------------------------------------------------------------------------------------
    // lifecycle

    public void attach(final Raas raas)
    {
        io.lock();
        try
        {
            if (this.raas != null)
            {
                throw new IllegalStateException("MetaDirectory already serves node " + this.raas.self().id());
            }
            this.raas = raas;
            this.buffers = MetaSegments.allocate(raas);
            openFirstLink();
            final long leaseMs = links[preferred].leaseMs();
            final long periodMs = context.heartbeatMs() > 0 ? context.heartbeatMs() : Math.max(10, leaseMs / 3);
            heartbeats = Executors.newSingleThreadScheduledExecutor(runnable ->
            {
                final Thread thread = new Thread(runnable, "dkv-meta-heartbeat-" + raas.self().id());
                thread.setDaemon(true);
                return thread;
            });
            renewalPeriodMs = periodMs;
            attached = true;
            heartbeats.scheduleWithFixedDelay(this::renew, periodMs, periodMs, TimeUnit.MILLISECONDS);
        }
        finally
        {
            io.unlock();
        }
    }

    /**
     * Open a link to a MetaServer, trying each at least twice: a first attempt can be lost (a server
     * still holding a connection to whoever had this node's address before answers into it).
     */
    private void openFirstLink()
    {
        final long deadline = nanoClock.nanoTime() + rpcTimeout.toNanos();
        // a MetaServer that refused this node's secret answered: asking it again changes nothing
        final boolean[] refused = new boolean[links.length];
        RaasException refusal = null;
        for (int round = 0; ; round++)
        {
            for (int i = 0; i < links.length; i++)
            {
                if (refused[i])
                {
                    continue;
                }
                try
                {
                    if (open(links[i]))
                    {
                        prefer(i);
                        return;
                    }
                }
                catch (final SecretRefusedException ex)
                {
                    refused[i] = true;
                    refusal = refusal == null ? ex : refusal;
                }
            }
            if (refusal != null && allSet(refused))
            {
                throw refusal;
            }
            if (round >= 1 && nanoClock.nanoTime() - deadline > 0)
            {
                throw new RaasException("no MetaServer answered: " + describeLinks());
            }
            LockSupport.parkNanos(Math.min(relinkNanos, TimeUnit.MILLISECONDS.toNanos(100)));
        }
    }

    private static boolean allSet(final boolean[] flags)
    {
        for (final boolean flag : flags)
        {
            if (!flag)
            {
                return false;
            }
        }
        return true;
    }

    public void detach()
    {
        attached = false;
        final ScheduledExecutorService scheduler = heartbeats;
        if (scheduler != null)
        {
            scheduler.shutdownNow();
            try
            {
                scheduler.awaitTermination(rpcTimeout.toMillis(), TimeUnit.MILLISECONDS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
        io.lock();
        try
        {
            final NodeRecord me = self;
            self = null;
            for (final NodeRecord node : hosted.values())
            {
                deregisterLocked(node);
            }
            hosted.clear();
            if (me != null)
            {
                deregisterLocked(me);
            }
            for (final MetaServerLink link : links)
            {
                link.close();
            }
        }
        finally
        {
            io.unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // lookups: one-sided READs, cached until the epoch moves

    public NodeRecord node(final long nodeId)
    {
        for (final MetaServerLink link : links)
        {
            if (link.endpoint.nodeId() == nodeId)
            {
                return link.record;
            }
        }
        refreshEpochIfDue();
        synchronized (cacheLock)
        {
            final NodeRecord cached = nodeCache.get(nodeId);
            if (cached != null)
            {
                return cached;
            }
        }
        io.lock();
        try
        {
            NodeRecord found = lookup(reader -> reader.node(nodeId));
            if (found == null && refreshEpochLocked())
            {
                found = lookup(reader -> reader.node(nodeId));
            }
            if (found != null)
            {
                synchronized (cacheLock)
                {
                    nodeCache.put(nodeId, found);
                }
            }
            return found;
        }
        finally
        {
            io.unlock();
        }
    }

    /** Reads the whole node table (not cached: membership is asked for rarely). */
    public List<NodeRecord> nodes(final int role)
    {
        io.lock();
        try
        {
            return lookup(reader -> reader.nodes(role));
        }
        finally
        {
            io.unlock();
        }
    }

    /** Reads the members block anew (not cached: it is asked for after a failed request and now and then). */
    public Membership membership()
    {
        return membershipRecord().toMembership();
    }

    /** @return the membership with each member's incarnation, read anew one-sided. */
    public MembershipRecord membershipRecord()
    {
        io.lock();
        try
        {
            return lookup(MetaTableReader::membership);
        }
        finally
        {
            io.unlock();
        }
    }

    public RemoteRegion region(final String name)
    {
        refreshEpochIfDue();
        synchronized (cacheLock)
        {
            final RemoteRegion cached = regionCache.get(name);
            if (cached != null)
            {
                return cached;
            }
        }
        io.lock();
        try
        {
            RemoteRegion found = lookup(reader -> reader.region(name));
            if (found == null && refreshEpochLocked())
            {
                found = lookup(reader -> reader.region(name));
            }
            if (found != null)
            {
                synchronized (cacheLock)
                {
                    regionCache.put(name, found);
                }
            }
            return found;
        }
        finally
        {
            io.unlock();
        }
    }

    public void invalidate(final long nodeId)
    {
        // called by the driver's poller when a request failed: drop, do not read here
        synchronized (cacheLock)
        {
            nodeCache.remove(nodeId);
            regionCache.values().removeIf(region -> region.nodeId() == nodeId);
        }
        epochCheckDue = true;
    }

    private <T> T lookup(final Function<MetaTableReader, T> read)
    {
        tableLookups.incrementAndGet();
        return withLink(link -> read.apply(link.reader()));
    }

    private void refreshEpochIfDue()
    {
        if (!epochCheckDue && nanoClock.nanoTime() - nextEpochCheckNanos < 0)
        {
            return;
        }
        io.lock();
        try
        {
            if (epochCheckDue || nanoClock.nanoTime() - nextEpochCheckNanos >= 0)
            {
                refreshEpochLocked();
            }
        }
        finally
        {
            io.unlock();
        }
    }

    /**
     * Read the epoch; drop the cache if it moved.
     *
     * @return true when the epoch or the probe limits moved (a lookup that missed may now hit).
     */
    private boolean refreshEpochLocked()
    {
        epochCheckDue = false;
        nextEpochCheckNanos = nanoClock.nanoTime() + epochCheckNanos;
        epochReads.incrementAndGet();
        final long[] limitsBefore = new long[1];
        final long epoch = withLink(link ->
        {
            limitsBefore[0] = link.reader().probeLimits();
            return link.reader().refreshEpoch();
        });
        final boolean limitsMoved = links[preferred].reader().probeLimits() != limitsBefore[0];
        if (epoch != knownEpoch)
        {
            knownEpoch = epoch;
            clearCache();
            return true;
        }
        return limitsMoved;
    }

    private void clearCache()
    {
        synchronized (cacheLock)
        {
            nodeCache.clear();
            regionCache.clear();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // writes: RPCs

    public void register(final NodeRecord self)
    {
        io.lock();
        try
        {
            leaseExpiry = registerLocked(self, context.join(), context.restored());
            this.self = self;
        }
        finally
        {
            io.unlock();
        }
    }

    /** Register a node, waiting out another holder's live record of its id. Holds io. @return the lease expiry. */
    private long registerLocked(final NodeRecord node, final boolean join, final boolean restored)
    {
        final long leaseNanos = TimeUnit.MILLISECONDS.toNanos(preferred >= 0 ? links[preferred].leaseMs() : 0);
        final long deadline = nanoClock.nanoTime() + 2 * leaseNanos + rpcTimeout.toNanos();
        while (true)
        {
            try
            {
                return withLink(link -> link.register(node, token, join, restored));
            }
            catch (final MetaRpcException ex)
            {
                // another holder's record of this id is live: it may be this node before a crash (or an application
                // attached to a driver that died), whose lease lapses
                if (ex.status() != MetaRpcDescriptor.STATUS_FORBIDDEN || nanoClock.nanoTime() - deadline > 0)
                {
                    throw ex;
                }
                LockSupport.parkNanos(Math.min(relinkNanos, TimeUnit.MILLISECONDS.toNanos(100)));
            }
        }
    }

    /**
     * Register a node an application attached to this directory's driver is, under this driver's token: its lease is
     * renewed at each heartbeat of the driver's own, and it is registered again (with its regions) if the MetaServer
     * forgot it.
     */
    public void registerHosted(final NodeRecord node)
    {
        io.lock();
        try
        {
            registerLocked(node, false, false);
            hosted.put(node.id(), node);
        }
        finally
        {
            io.unlock();
        }
    }

    public void deregisterHosted(final long nodeId)
    {
        io.lock();
        try
        {
            final NodeRecord node = hosted.remove(nodeId);
            if (node != null)
            {
                deregisterLocked(node);
            }
        }
        finally
        {
            io.unlock();
        }
    }

    /** Holds io. */
    private void deregisterLocked(final NodeRecord node)
    {
        try
        {
            withLink(link ->
            {
                link.deregister(node, token);
                return null;
            });
        }
        catch (final RaasException ignore)
        {
            // no MetaServer answers: the lease expires instead
        }
    }

    public void publish(final RemoteRegion region)
    {
        io.lock();
        try
        {
            withLink(link ->
            {
                link.publish(region, token);
                return null;
            });
            published.put(region.name(), region);
            synchronized (cacheLock)
            {
                regionCache.put(region.name(), region);
            }
        }
        finally
        {
            io.unlock();
        }
    }

    public void withdraw(final String name)
    {
        io.lock();
        try
        {
            withLink(link ->
            {
                link.withdraw(name, token);
                return null;
            });
            published.remove(name);
            synchronized (cacheLock)
            {
                regionCache.remove(name);
            }
        }
        finally
        {
            io.unlock();
        }
    }

    /**
     * Declare a joining member's copies refilled: it becomes live, read like any other.
     *
     * @param nodeId      the member.
     * @param incarnation the incarnation whose copies were refilled (its node record's epoch).
     * @throws MetaRpcException with {@link MetaRpcDescriptor#STATUS_CONFLICT} when the member is not joining as that
     *                          incarnation: it restarted again, went down, or is no member.
     */
    public void markLive(final long nodeId, final long incarnation)
    {
        io.lock();
        try
        {
            withLink(link ->
            {
                link.markLive(nodeId, incarnation);
                return null;
            });
        }
        finally
        {
            io.unlock();
        }
    }

    public Membership beginAdd(final long nodeId)
    {
        return changeMembership(MetaRpcDescriptor.TYPE_BEGIN_ADD, nodeId);
    }

    public Membership beginDrain(final long nodeId)
    {
        return changeMembership(MetaRpcDescriptor.TYPE_BEGIN_DRAIN, nodeId);
    }

    public Membership advanceMembership(final int expectedPhase)
    {
        return changeMembership(MetaRpcDescriptor.TYPE_ADVANCE_MEMBERSHIP, expectedPhase);
    }

    public Membership abortMembershipChange()
    {
        return changeMembership(MetaRpcDescriptor.TYPE_ABORT_MEMBERSHIP, 0);
    }

    /**
     * @throws MetaRpcException with {@link MetaRpcDescriptor#STATUS_CONFLICT} naming the phase, node and epoch when
     *                          the membership does not allow the change.
     */
    private Membership changeMembership(final byte type, final long argument)
    {
        io.lock();
        try
        {
            return withLink(link -> link.changeMembership(type, argument)).toMembership();
        }
        finally
        {
            io.unlock();
        }
    }

    /**
     * Renew the leases; register again a node the MetaServer forgot, and publish its regions again until each is
     * published: a register that succeeded before a publish failed (the server slow after its restart, stopped, or
     * its reply lost) leaves the rest owed, and the next renewal, which then succeeds, would otherwise never publish
     * them, leaving a live node whose regions nobody can find. Run every {@link MetaDirectoryContext#heartbeatMs()};
     * a failure is kept ({@link #lastHeartbeatFailure()}) and the next period tries again.
     */
    public void renew()
    {
        if (!attached)
        {
            return;
        }
        io.lock();
        try
        {
            reviveLinks();
            final NodeRecord me = self;
            if (me == null)
            {
                return;
            }
            try
            {
                leaseExpiry = withLink(link -> link.heartbeat(me, token));
            }
            catch (final MetaRpcException ex)
            {
                if (ex.status() != MetaRpcDescriptor.STATUS_NOT_REGISTERED)
                {
                    throw ex;
                }
                // owed before the register: one whose reply is lost still leaves the regions to publish
                oweRegionsOf(me.id());
                leaseExpiry = withLink(link -> link.register(me, token, context.join(), context.restored()));
                LOG.log(System.Logger.Level.INFO, "the MetaServer had forgotten node " + me.id() +
                    " (its lease ran out or the server lost it): registered again, " + owedRegions.size() +
                    " regions to publish again");
            }
            for (final NodeRecord node : hosted.values())
            {
                renewHosted(node);
            }
            publishOwedRegions();
            if (lastHeartbeatFailure != null)
            {
                LOG.log(System.Logger.Level.INFO, "renewing node " + me.id() + "'s lease works again");
            }
            lastHeartbeatFailure = null;
        }
        catch (final RuntimeException ex)
        {
            // the next period tries again; the lease outlives a few missed renewals. Said again when the cause
            // changes: a node that never renews again is understood from what its last tries met
            if (!Objects.equals(lastHeartbeatFailure, ex.getMessage()))
            {
                LOG.log(System.Logger.Level.WARNING, "renewing node " + (self == null ? "?" : self.id()) +
                    "'s lease failed (tried again every " + renewalPeriodMs + " ms): " + ex.getMessage());
            }
            lastHeartbeatFailure = ex.getMessage();
        }
        finally
        {
            io.unlock();
        }
    }

    /** Renew an attached application's node, registering it again if it was forgotten. Holds io. */
    private void renewHosted(final NodeRecord node)
    {
        try
        {
            withLink(link -> link.heartbeat(node, token));
        }
        catch (final MetaRpcException ex)
        {
            if (ex.status() != MetaRpcDescriptor.STATUS_NOT_REGISTERED)
            {
                throw ex;
            }
            oweRegionsOf(node.id());
            withLink(link -> link.register(node, token, false, false));
            LOG.log(System.Logger.Level.INFO, "the MetaServer had forgotten attached node " + node.id() +
                ": registered again");
        }
    }

    /** Holds io. */
    private void oweRegionsOf(final long nodeId)
    {
        for (final RemoteRegion region : published.values())
        {
            if (region.nodeId() == nodeId)
            {
                owedRegions.add(region.name());
            }
        }
    }

    /**
     * Publish each owed region, dropping it once the MetaServer took it. A refusal (its name taken meanwhile by
     * another node) leaves it owed for the next renewal and goes on with the others; a failed link stops the round.
     * Holds io.
     */
    private void publishOwedRegions()
    {
        if (owedRegions.isEmpty())
        {
            return;
        }
        MetaRpcException refused = null;
        for (final String name : new ArrayList<>(owedRegions))
        {
            final RemoteRegion region = published.get(name);
            if (region == null)
            {
                owedRegions.remove(name);
                continue;
            }
            try
            {
                withLink(link ->
                {
                    link.publish(region, token);
                    return null;
                });
                owedRegions.remove(name);
            }
            catch (final MetaRpcException ex)
            {
                refused = ex;
            }
        }
        if (refused != null)
        {
            throw new RaasException("publishing again " + owedRegions + " of the regions the MetaServer forgot: " +
                refused.getMessage(), refused);
        }
    }

    /** @return names of regions published before the MetaServer forgot their node and not published since. */
    public List<String> owedRegions()
    {
        io.lock();
        try
        {
            return List.copyOf(owedRegions);
        }
        finally
        {
            io.unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // links

    /** Run an operation on the preferred MetaServer, moving to the other when one fails. Holds io. */
    private <T> T withLink(final Function<MetaServerLink, T> operation)
    {
        RuntimeException last = null;
        for (int attempt = 0; attempt <= links.length; attempt++)
        {
            final MetaServerLink link = usableLink();
            if (link == null)
            {
                break;
            }
            try
            {
                return operation.apply(link);
            }
            catch (final MetaRpcException ex)
            {
                throw ex;
            }
            catch (final RaasException ex)
            {
                last = ex;
                link.fail(ex, relinkNanos);
            }
        }
        throw new RaasException("no MetaServer answered: " + describeLinks(), last);
    }

    /** @return the preferred link if up, else another that is up or opens now, else null. */
    private MetaServerLink usableLink()
    {
        if (preferred >= 0 && links[preferred].isUp())
        {
            return links[preferred];
        }
        for (int i = 0; i < links.length; i++)
        {
            if (links[i].isUp())
            {
                prefer(i);
                return links[i];
            }
        }
        final long now = nanoClock.nanoTime();
        for (int i = 0; i < links.length; i++)
        {
            if (links[i].isDue(now) && open(links[i]))
            {
                prefer(i);
                return links[i];
            }
        }
        return null;
    }

    /** Reopen failed links that are due; go back to the first MetaServer once it answers again. */
    private void reviveLinks()
    {
        final long now = nanoClock.nanoTime();
        for (int i = 0; i < links.length; i++)
        {
            if (!links[i].isUp() && links[i].isDue(now) && open(links[i]) && i < preferred)
            {
                prefer(i);
            }
        }
    }

    /**
     * @return true when the link opened, false when the MetaServer did not answer (tried again once due).
     * @throws SecretRefusedException when it answered under another cluster secret than this node's.
     */
    private boolean open(final MetaServerLink link)
    {
        try
        {
            link.open(raas, buffers, rpcTimeout, authenticator());
            return true;
        }
        catch (final RaasException ex)
        {
            if (ex instanceof MetaRpcException answered && answered.foreignSecret())
            {
                final SecretRefusedException refusal =
                    new SecretRefusedException(link.endpoint, context.clusterSecretSource(), answered);
                link.fail(refusal, relinkNanos);
                throw refusal;
            }
            link.fail(ex, relinkNanos);
            return false;
        }
    }

    /**
     * A MetaServer that answered, under another cluster secret than this node's: it refused the request, and will
     * refuse every other, so this is said at once rather than waited out as a MetaServer that does not answer.
     */
    private static final class SecretRefusedException extends RaasException
    {
        private static final long serialVersionUID = 1L;

        SecretRefusedException(final MetaEndpoint endpoint, final String secretSource, final MetaRpcException cause)
        {
            super("the MetaServer at " + endpoint.address() + " (node " + endpoint.nodeId() + ") refused this " +
                "node's cluster secret (" + secretSource + "): it does not match the cluster's", cause);
        }
    }

    /** Read from another MetaServer: its epochs are its own, so nothing cached carries over. */
    private void prefer(final int index)
    {
        if (preferred != index)
        {
            preferred = index;
            knownEpoch = links[index].reader().epoch();
            clearCache();
        }
    }

    private String describeLinks()
    {
        final StringBuilder text = new StringBuilder();
        for (final MetaServerLink link : links)
        {
            text.append(text.isEmpty() ? "" : "; ").append(link);
        }
        return text.toString();
    }

    // ---------------------------------------------------------------------------------------------
    // what tools and tests look at

    /** @return the node id of the MetaServer reads and RPCs go to, or 0 when none answers. */
    public long currentServer()
    {
        io.lock();
        try
        {
            return preferred >= 0 && links[preferred].isUp() ? links[preferred].endpoint.nodeId() : 0;
        }
        finally
        {
            io.unlock();
        }
    }

    /** @return the lease expiry (wall-clock millis) last granted to this node. */
    public long leaseExpiry()
    {
        return leaseExpiry;
    }

    /** @return why the last lease renewal failed, or null when it succeeded. */
    public String lastHeartbeatFailure()
    {
        return lastHeartbeatFailure;
    }

    /** @return lookups that missed the cache and read the tables. */
    public long tableLookups()
    {
        return tableLookups.get();
    }

    /** @return epoch checks (one READ each). */
    public long epochReads()
    {
        return epochReads.get();
    }

    public String toString()
    {
        return "MetaDirectory{" + describeLinks() + "}";
    }
}
