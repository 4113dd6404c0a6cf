package io.dkv.compute;

import io.dkv.format.KvBlockLayout;

/**
 * A compute node's settings and their defaults, each a system property that a {@link ComputeNodeContext} starts from.
 */
public final class ComputeNodeConfiguration
{
    /** Port of the RESP server; 0 takes a free one. */
    public static final String PORT_PROP_NAME = "dkv.compute.port";
    public static final int PORT_DEFAULT = 6379;

    /** Address the RESP server listens on: loopback unless told otherwise, as redis's protected mode would have it. */
    public static final String BIND_PROP_NAME = "dkv.compute.bind";
    public static final String BIND_DEFAULT = "127.0.0.1";

    /** Connections served at once (redis's maxclients); one more is answered with an error and closed. */
    public static final String MAX_CLIENTS_PROP_NAME = "dkv.compute.max.clients";
    public static final int MAX_CLIENTS_DEFAULT = 10_000;

    /**
     * Bytes of one argument the node holds whole (the store's largest plain value); a longer one, up to redis's
     * proto-max-bulk-len (512 MB), is written into pieces as it arrives (client/README.md, "Strings in pieces").
     */
    public static final String MAX_BULK_PROP_NAME = "dkv.compute.max.bulk.bytes";
    public static final int MAX_BULK_DEFAULT = KvBlockLayout.MAX_VALUE_LENGTH;

    /**
     * Arguments of one request at most: redis's bound (2^31 - 1) by default, as the query buffer limit bounds what a
     * request of many arguments holds (each counts its length and 24 bytes).
     */
    public static final String MAX_ARGS_PROP_NAME = "dkv.compute.max.args";
    public static final int MAX_ARGS_DEFAULT = Integer.MAX_VALUE;

    /**
     * Bytes of all the arguments of one request at most: what one connection can make the node hold, redis's
     * client-query-buffer-limit (CONFIG SET changes it). Smaller than redis's 1 GB: a compute node's heap is smaller
     * than a redis-server's machine, and an argument past {@link #MAX_BULK_DEFAULT} is not held but written into the
     * store as it arrives.
     */
    public static final String MAX_COMMAND_PROP_NAME = "dkv.compute.max.command.bytes";
    public static final long MAX_COMMAND_DEFAULT = 16L << 20;

    /** A request begun and not finished within this long closes its connection: a stalled peer holds nothing. */
    /**
     * How often the node sweeps the pieces of long strings nobody published (their writer stopped), and how old such
     * pieces must be: 0 for never.
     */
    public static final String PIECES_SWEEP_PROP_NAME = "dkv.compute.pieces.sweep.ms";
    public static final long PIECES_SWEEP_DEFAULT = 3_600_000;

    public static final String PARTIAL_TIMEOUT_PROP_NAME = "dkv.compute.partial.timeout.ms";
    public static final long PARTIAL_TIMEOUT_DEFAULT = 10_000;

    /** Event loop threads; each runs its connections' commands, and the client gives each its own session. */
    public static final String IO_THREADS_PROP_NAME = "dkv.compute.io.threads";
    public static final int IO_THREADS_DEFAULT = Math.max(1, Runtime.getRuntime().availableProcessors());

    /**
     * How long close waits for connections to finish the requests they have read before it closes them whatever their
     * peers do (a peer that reads nothing included), and again for the event loops to stop.
     */
    /**
     * How long a call to another compute node (pub/sub's) waits for its answer: a node that does not answer within it
     * is called no more until it is met again (within a quarter second), and a message meanwhile misses its
     * subscribers, as if its node had died.
     */
    public static final String MESH_CALL_TIMEOUT_PROP_NAME = "dkv.compute.mesh.call.timeout.ms";
    public static final long MESH_CALL_TIMEOUT_DEFAULT = 2_000;

    public static final String DRAIN_TIMEOUT_PROP_NAME = "dkv.compute.drain.timeout.ms";
    public static final long DRAIN_TIMEOUT_DEFAULT = 5_000;

    /**
     * Bind the RESP port with SO_REUSEPORT, so that several compute nodes of this host listen on one port and the
     * kernel spreads new connections among them; each must ask for it (and run as the same user).
     */
    public static final String REUSE_PORT_PROP_NAME = "dkv.compute.reuse.port";
    public static final boolean REUSE_PORT_DEFAULT = false;

    /**
     * Port of the Prometheus text endpoint ({@code GET /metrics}) on the RESP server's address: -1 serves none (and
     * loads none of its classes), 0 takes a free one.
     */
    public static final String METRICS_PORT_PROP_NAME = "dkv.compute.metrics.port";
    public static final int METRICS_PORT_DEFAULT = -1;

    /**
     * The recent window that the command-duration quantiles and the CPU utilization cover, kept as ten intervals that
     * rotate: long enough to smooth a burst, short enough for an autoscaler to see a change within it.
     */
    public static final String METRICS_WINDOW_PROP_NAME = "dkv.compute.metrics.window.ms";
    public static final long METRICS_WINDOW_DEFAULT = 10_000;

    /**
     * How long a compute node behind the host's driver ({@code --driver}) lets a live driver be silent before it gives
     * it up, unless {@code dkv.raas.driver.timeout.ms} says: on a host whose two cores are overloaded a live driver was
     * seen silent for over 3 s (the default for short-lived clients), and a node that gave it up failed every request.
     */
    public static final int ATTACHED_DRIVER_TIMEOUT_MS = 10_000;

    /**
     * Rounds of requests each event loop runs through the node's own RESP path before the port accepts ({@link
     * WarmUp}); 0 for none. Each round is nine commands, a write, a read and a compare-and-set among them.
     */
    public static final String WARMUP_ROUNDS_PROP_NAME = "dkv.compute.warmup.rounds";
    public static final int WARMUP_ROUNDS_DEFAULT = 1;

    /**
     * Whether GET, SET and INCR go out through the client's asynchronous forms, so that an event loop posts a
     * request's reads and writes and serves others while they travel: {@code on}, {@code off}, or {@code auto} (on
     * where the client's requests wait on a wire or a NIC, tcp or verbs; off on shm, where a request is the posting
     * thread's own copy and the synchronous form costs less).
     */
    public static final String ASYNC_COMMANDS_PROP_NAME = "dkv.compute.async.commands";
    public static final String ASYNC_COMMANDS_DEFAULT = "auto";

    /**
     * Reply bytes a connection may have pending (written and not yet taken by its peer) at most, redis's {@code
     * client-output-buffer-limit normal} hard limit: a connection past it is closed. A connection stops running its
     * requests long before, at {@link #WRITE_HIGH_WATER_DEFAULT}, so what passes it is the replies of one lookup: a
     * run of pipelined GETs or a slice of an MGET, whose keys are sized to give about 1 MiB, the first at most 128
     * keys (128 MiB of the largest values; redis's own limit for replicas is 256 MB).
     */
    public static final String OUTPUT_LIMIT_PROP_NAME = "dkv.compute.client.output.limit.bytes";
    public static final long OUTPUT_LIMIT_DEFAULT = 256L << 20;

    /**
     * Reply bytes pending across all the node's connections at most (redis's maxmemory-clients, which CONFIG SET
     * changes; 0: no bound): past it the connections holding most are closed. -1, the default, is half the direct
     * memory Netty may take (the JVM's -XX:MaxDirectMemorySize, by default its heap's size), which the replies are
     * held in: once that runs out, writes to every connection fail, those of clients that read theirs included.
     */
    public static final String CLIENTS_MEMORY_PROP_NAME = "dkv.compute.maxmemory.clients.bytes";
    public static final long CLIENTS_MEMORY_DEFAULT = -1;

    /**
     * Reply bytes pending on a connection at which it stops reading and running its requests (Netty's high water
     * mark), until its peer has taken them down to half as many.
     */
    public static final String WRITE_HIGH_WATER_PROP_NAME = "dkv.compute.write.high.water.bytes";
    public static final int WRITE_HIGH_WATER_DEFAULT = 1 << 20;

    /** The delay of a connection's first failed AUTH reply; each further failure doubles it, to the max below. */
    public static final String AUTH_FAILURE_DELAY_PROP_NAME = "dkv.compute.auth.failure.delay.ms";
    public static final long AUTH_FAILURE_DELAY_DEFAULT = 100;

    /** The longest a failed AUTH's reply is held. */
    public static final String AUTH_FAILURE_DELAY_MAX_PROP_NAME = "dkv.compute.auth.failure.delay.max.ms";
    public static final long AUTH_FAILURE_DELAY_MAX_DEFAULT = 2_000;

    /** Failed AUTHs (or HELLO AUTHs) after which a connection is closed, its last reply sent. */
    public static final String AUTH_FAILURES_MAX_PROP_NAME = "dkv.compute.auth.failures.max";
    public static final int AUTH_FAILURES_MAX_DEFAULT = 10;

    /**
     * redis's {@code appendonly}: {@code yes} has each write tell its memory nodes, which keep it on disk as
     * {@link #APPENDFSYNC_PROP_NAME} says; {@code no} tells them nothing (memory only). Unset in a context, the node
     * runs as its client's durability says ({@code dkv.client.durability}, none by default); the command line's
     * default is {@link #APPENDONLY_DEFAULT}.
     */
    public static final String APPENDONLY_PROP_NAME = "dkv.compute.appendonly";
    public static final String APPENDONLY_DEFAULT = "yes";

    /**
     * redis's {@code appendfsync} ({@link AppendFsync}): {@code always}, {@code everysec} or {@code no}, what a
     * write's OK promises while appendonly is yes. Unset in a context, as its client's durability says; the command
     * line's default is {@link #APPENDFSYNC_DEFAULT}.
     */
    public static final String APPENDFSYNC_PROP_NAME = "dkv.compute.appendfsync";
    public static final String APPENDFSYNC_DEFAULT = "everysec";

    /**
     * Redis's maxmemory for the pool, as redis writes it ({@code 100mb}, {@code 2gb}, bytes; 0: none): each memory node
     * hands out at most its share, by capacity, and writes past it answer OOM (policy noeviction). Set at the node's
     * start only when given; CONFIG SET maxmemory changes it while the pool runs, on every node of it.
     */
    public static final String MAXMEMORY_PROP_NAME = "dkv.compute.maxmemory";

    /**
     * Whether a node asked for appendonly over a memory node that keeps nothing on disk (started without a data
     * directory) runs with appendonly no and says so in one line, rather than fail its start naming the memory node:
     * what {@code ./dkv compute-node} does when neither {@code --appendonly} nor {@code --appendfsync} is given, so
     * that a store started without data directories still serves.
     */
    public static final String APPENDONLY_FALLBACK_PROP_NAME = "dkv.compute.appendonly.fallback";
    public static final boolean APPENDONLY_FALLBACK_DEFAULT = false;

    private ComputeNodeConfiguration()
    {
    }
}
