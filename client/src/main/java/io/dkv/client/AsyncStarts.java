package io.dkv.client;

import io.dkv.client.async.AsyncGet;
import io.dkv.client.async.AsyncGets;
import io.dkv.client.async.AsyncSlowPath;
import io.dkv.client.async.AsyncWrite;
import io.dkv.client.async.AsyncWrites;
import io.dkv.client.membership.MembershipView;
import io.dkv.client.node.HeapChunks;
import io.dkv.client.node.WriteEpochs;
import io.dkv.client.node.NodeLinks;
import io.dkv.client.replication.ReplicaChain;
import io.dkv.format.KeyHash;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.SlotWord;
import io.dkv.raas.Connection;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;

import java.util.concurrent.CompletableFuture;

/**
 * One thread's operations carried by completions ({@link io.dkv.client.async}): where each begins, with this thread's
 * links and chunks, and the pools they come from, made at the first of each. What cannot begin so goes to the
 * synchronous operation.
 */
final class AsyncStarts implements AutoCloseable
{
    private final Raas raas;
    private final KvClientContext context;
    private final MembershipView membership;
    private final EpochClock epochClock;
    private final NanoClock nanoClock;
    private final NodeLinks links;
    private final HeapChunks chunks;
    private final ReplicaChain chain;
    private final KeyRouting routing;
    /** This thread's GETs carried by completions; made at its first. */
    private AsyncGets asyncGets;
    /** This thread's writes carried by completions; made at its first. */
    private AsyncWrites asyncWrites;

    AsyncStarts(final Raas raas, final KvClientContext context, final MembershipView membership, final NodeLinks links,
        final HeapChunks chunks, final ReplicaChain chain, final KeyRouting routing)
    {
        this.raas = raas;
        this.context = context;
        this.membership = membership;
        this.epochClock = context.epochClock();
        this.nanoClock = context.nanoClock();
        this.links = links;
        this.chunks = chunks;
        this.chain = chain;
        this.routing = routing;
    }

    /**
     * Begin a GET that completions carry ({@link AsyncGet}) at the one node the key's read goes to now.
     *
     * @param kind     what it answers: {@link AsyncGet#VALUE}, {@link AsyncGet#VERSIONED} or {@link AsyncGet#TTL}.
     * @param slowPath where a GET goes that the completions cannot answer: the synchronous GET.
     * @return false when this thread has {@link AsyncGets#inFlight} in flight or the key's read needs more (a key
     * moving between heads, a node that cannot be used now): the caller runs the synchronous GET instead.
     */
    boolean startGet(final int kind, final byte[] key, final CompletableFuture<Object> future,
        final AsyncSlowPath slowPath)
    {
        if (asyncGets == null)
        {
            asyncGets = new AsyncGets(raas, context, slowPath);
        }
        final AsyncGet get = asyncGets.acquire();
        if (get == null)
        {
            return false;
        }
        try
        {
            final long started = nanoClock.nanoTime();
            final long hash = KeyHash.hash(key);
            final int node = routing.readsAt(hash, key);
            if (node >= 0)
            {
                if (asyncGets.connections().isMoved(node, links.view(node)))
                {
                    links.readDirectoryAgain(node);
                }
                final Connection connection = asyncGets.connections().connection(node, links.nodeId(node));
                get.start(kind, key, hash, node, links.nodeId(node), links.view(node), connection, started,
                    epochClock.time(), future);
                return true;
            }
        }
        catch (final KvException | RaasException ex)
        {
            // the synchronous GET meets it again, and waits or says why
        }
        asyncGets.release(get);
        return false;
    }

    /**
     * Begin a write that completions carry ({@link AsyncWrite}) over the key's replicas as placed now.
     *
     * @param value    the new value, or null to delete.
     * @param rule     a {@link ReplicaChain} rule.
     * @param slowPath where a write goes that the completions cannot carry: the synchronous write.
     * @return false when this thread has {@link AsyncWrites#inFlight} in flight, the block is larger than
     * {@link AsyncWrite#MAX_BLOCK}, it is a delete that tells nodes (a tombstone's), or the write needs more than
     * a steady placement (a membership change moving the key, a replica joining or declared down just now, a node that
     * cannot be used now): the caller runs the synchronous write instead.
     */
    boolean startWrite(final int rule, final byte[] key, final byte[] value, final byte[] expected,
        final Versioned version, final long expireAt, final CompletableFuture<Object> future,
        final AsyncSlowPath slowPath)
    {
        final AsyncWrite write = ready(rule, key, value, expected, version, expireAt, future, slowPath, false);
        if (write == null)
        {
            return false;
        }
        write.go();
        return true;
    }

    /**
     * Make ready a transaction's raw swap that completions carry ({@link AsyncWrite#prepare}): the key from the block
     * whose write id {@code from} names to {@code value}, compared by write id only; started by {@link AsyncWrite#go}
     * on any thread, or given back by {@link AsyncWrite#cancel}. Its future completes with the version it put in
     * place, or false.
     *
     * @return null where {@link #startWrite} would refuse it: the caller runs the synchronous swap instead.
     */
    AsyncWrite prepareSwap(final byte[] key, final Versioned from, final byte[] value, final long expireAt,
        final CompletableFuture<Object> future, final AsyncSlowPath slowPath)
    {
        return ready(ReplicaChain.IF_VERSION, key, value, null, from, expireAt, future, slowPath, true);
    }

    private AsyncWrite ready(final int rule, final byte[] key, final byte[] value, final byte[] expected,
        final Versioned version, final long expireAt, final CompletableFuture<Object> future,
        final AsyncSlowPath slowPath, final boolean raw)
    {
        final int length = value == null ? 0 : KvBlockLayout.blockLength(key.length, value.length);
        if (length > AsyncWrite.MAX_BLOCK || (value == null && chunks.tombstones()))
        {
            // a delete that tells nodes publishes a tombstone (KvSession.delete), which the synchronous write
            // carries
            return null;
        }
        if (asyncWrites == null)
        {
            asyncWrites = new AsyncWrites(raas, context, membership, slowPath);
        }
        final AsyncWrite write = asyncWrites.acquire();
        if (write == null)
        {
            return null;
        }
        try
        {
            final long now = epochClock.time();
            final long hash = KeyHash.hash(key);
            final boolean plain = routing.plain();
            final long epoch = plain ? -1 : membership.epoch();
            final int count;
            if (plain)
            {
                write.nodes[0] = routing.node(hash);
                count = 1;
            }
            else
            {
                count = chain.placeSteady(hash, key, write.nodes);
            }
            // a raw swap compares write ids, which need no word known
            if (count > 0 &&
                (rule != ReplicaChain.IF_VERSION || !plain || raw || links.knowsWord(version, write.nodes[0])))
            {
                for (int p = 0; p < count; p++)
                {
                    final int node = links.use(write.nodes[p]);
                    if (asyncWrites.connections().isMoved(node, links.view(node)))
                    {
                        links.readDirectoryAgain(node);
                    }
                    write.nodeIds[p] = links.nodeId(node);
                    write.views[p] = links.view(node);
                    write.connections[p] = asyncWrites.connections().connection(node, links.nodeId(node));
                }
                final long writeId = KvBlockLayout.drawWriteId();
                if (value != null)
                {
                    KvBlockLayout.write(write.out(length), 0, key, value, expireAt, writeId, flightEpoch(future),
                        chunks.pendingBlocks());
                    chunks.reserveBlocks(write.nodes, count, length, write.blockOffsets);
                }
                final int fingerprint = KeyHash.fingerprint(hash);
                for (int p = 0; p < count; p++)
                {
                    write.newWords[p] = value == null ? SlotWord.EMPTY : SlotWord.committed(fingerprint,
                        write.blockOffsets[p], length, expireAt != KvBlockLayout.NEVER,
                        chunks.generationOf(write.nodes[p], write.blockOffsets[p]));
                }
                write.prepare(key, hash, value, rule, expected, version, expireAt, writeId, length, count, epoch,
                    now, future, raw);
                // as its block was written (pending or not): its nodes are told so, whatever the client's says later
                write.durability(chunks.durability());
                return write;
            }
        }
        catch (final KvException | RaasException ex)
        {
            // the synchronous write meets it again, and waits or says why
        }
        asyncWrites.release(write);
        return null;
    }

    /** @return writes of this thread their completions finished alone (not handed to a client thread). */
    /**
     * The epoch a write carried by completions writes its block at. When its nodes are to be told of it, the write is
     * held in flight first and until its future completes, which under a durability that tells nodes is once each
     * node took its notice ({@code PersistRequests}) or the write ended otherwise.
     */
    private long flightEpoch(final CompletableFuture<Object> future)
    {
        final WriteEpochs epochs = chunks.epochs();
        if (chunks.durability() != Durability.NONE)
        {
            final int slot = chunks.enterFlight();
            future.whenComplete((answer, failure) -> epochs.leave(slot));
        }
        return epochs.current();
    }

    long writesAnsweredByCompletions()
    {
        return asyncWrites == null ? 0 : asyncWrites.answered();
    }

    /** @return GETs of this thread its completions answered alone (not handed to the synchronous GET). */
    long getsAnsweredByCompletions()
    {
        return asyncGets == null ? 0 : asyncGets.answered();
    }

    public void close()
    {
        if (asyncGets != null)
        {
            asyncGets.close();
        }
        if (asyncWrites != null)
        {
            asyncWrites.close();
        }
    }
}
