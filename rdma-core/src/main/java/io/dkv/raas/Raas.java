package io.dkv.raas;

import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * An application's handle on RDMA as a Service: connections to nodes, named regions and
 * registered buffers, served by a driver embedded in this JVM (the default) or by a standalone
 * driver shared by every process of the host.
 * <p>
 * Each implementation makes its own handles, so this package names none of them:
 * {@link io.dkv.raas.driver.RaasDriver#start} starts a driver in this JVM,
 * {@link io.dkv.raas.cnc.AttachedRaas#attach} attaches to the host's standalone driver ({@code ./dkv driver}),
 * {@link io.dkv.raas.lite.Join#join(String, java.nio.file.Path)} joins a cluster by its MetaServers alone, and
 * {@link io.dkv.raas.stream.RaasStream#connect(Raas, long, int)} and
 * {@link io.dkv.raas.stream.StreamListener#listen(Raas, int)} carry byte streams over any handle.
 */
public interface Raas extends AutoCloseable
{
    /** @return this node's record as peers reach it. */
    NodeRecord self();

    /**
     * @return which session with a driver this handle's calls go through: 1 for a driver of the handle's own, which
     * never changes; a handle attached to the host's standalone driver counts the drivers it attached to under the
     * name, one more each time one restarted. Listeners, published regions and connections belong to the session
     * that gave them: an application that keeps serving across its driver's restarts listens and publishes again once
     * this moves on.
     */
    default int session()
    {
        return 1;
    }

    /**
     * @return the monotonic clock this handle's waits run on, its context's ({@link RaasContext#nanoClock()}): what
     * a caller that waits on the handle (an RPC client, a byte stream) measures its own deadlines by, so that one
     * setting governs the process.
     */
    NanoClock nanoClock();

    /**
     * @return the asynchronous one-sided requests one connection of this handle may have outstanding at once
     * ({@link RaasContext#connectionCredits()}, {@link RaasConfiguration#CONNECTION_CREDITS_DEFAULT} unless set): a
     * request past them waits for a credit, on its caller's thread, so a caller that posts from a completion handler
     * (the thread that would deliver the credit back) sizes what it keeps in flight by it.
     */
    int connectionCredits();

    /**
     * Open a logical connection to a node for one-sided requests: costs a metadata lookup, no
     * handshake with the peer.
     */
    Connection open(long nodeId, CompletionHandler handler);

    /**
     * Open a logical connection for messages with a service on a node: the peer's driver must have
     * a listener there; it answers with its vQPN and the buffer it advertises.
     */
    Connection connect(long nodeId, int service, int flags, CompletionHandler handler);

    Listener listen(int service);

    /**
     * Allocate {@code size} bytes on a node and publish them under {@code name} (LITE's malloc),
     * registered with exactly the remote rights peers are given: the NIC refuses every other access
     * to it, whatever rights a peer claims.
     *
     * @param access the remote rights ({@link io.dkv.verbs.Access#REMOTE_READ}, {@code REMOTE_WRITE},
     *               {@code REMOTE_ATOMIC}) peers need, and no more.
     * @throws RaasException when {@code access} names no remote right or a local one, or the node
     *                       refuses.
     */
    RemoteRegion malloc(long nodeId, long size, String name, int access);

    /**
     * Allocate a region holding {@code contents} on this node, or on the node an application attached to a standalone
     * driver is ({@link RaasContext#attachAs}), and publish it under {@code name} once the contents are in place: a
     * peer that finds the name reads them whole. For what a node publishes once (where it serves, say), and the way an
     * attached application fills a region at all, since it cannot write its driver's memory in place.
     *
     * @param access the remote rights peers need, as for {@link #malloc(long, long, String, int)}.
     * @throws RaasException when {@code nodeId} is neither, {@code access} is wrong, or the name is taken.
     */
    RemoteRegion publish(long nodeId, String name, MemorySegment contents, int access);

    /**
     * Allocate a region every remote right may reach: for regions whose users read, write and swap
     * words alike. Give the rights the users need with {@link #malloc(long, long, String, int)}.
     */
    default RemoteRegion malloc(final long nodeId, final long size, final String name)
    {
        return malloc(nodeId, size, name, io.dkv.verbs.Access.REMOTE_MASK);
    }

    /**
     * @return the live nodes of a role ({@link NodeRecord#ROLE_MEMORY}, ...), as the directory
     * lists them (the MetaServer's node table, read one-sided).
     * @throws RaasException when the directory cannot list nodes.
     */
    List<NodeRecord> nodes(int role);

    /**
     * @return the memory tier's members, their states and the replica count, as the directory keeps
     * them ({@link Directory#membership()}), read anew.
     * @throws RaasException when the directory cannot list nodes.
     */
    Membership membership();

    /** @return the region published under {@code name}. */
    RemoteRegion lookup(String name);

    /**
     * Let this node's connections reach a region a peer described in a message (LITE hands regions
     * over so): requests name only regions this node allocated, looked up or was told of.
     *
     * @throws RaasException where the handle cannot vouch for regions (one attached to a standalone driver).
     */
    void trust(RemoteRegion region);

    /** Withdraw and release a region this node allocated. */
    void free(RemoteRegion region);

    /**
     * @return the local memory behind a region this node allocated (embedded drivers: attached
     * clients reach their node's regions through a connection to their own node).
     */
    MemorySegment localMemory(RemoteRegion region);

    /**
     * @return registered memory the driver reads and writes without copying, for buffers the
     * application reuses.
     */
    MemorySegment allocateBuffer(int size);

    /** Make progress: poll completions now (the Poller agent does this when the application does not). */
    int poll();

    /**
     * Wait a turn for completions, after a {@link #poll} found none: a yield where this process's own driver makes
     * them; a handle attached to the host's driver sleeps until the driver answers (or a park's time passes), as a
     * yield there gives away the core the driver needs.
     *
     * @param turns idle turns so far in this wait, counted from 1.
     */
    default void idle(final int turns)
    {
        Thread.yield();
    }

    /**
     * @return true when completions of asynchronous requests are delivered without the application polling (an
     * embedded driver's Poller agent); false when only {@link #poll} and waiting callers deliver them (a handle
     * attached to the host's driver, or a driver started without its agents).
     */
    boolean pollsItself();

    void close();
}
