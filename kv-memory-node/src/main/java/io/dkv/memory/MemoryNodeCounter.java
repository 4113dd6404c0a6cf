package io.dkv.memory;

import io.dkv.agent.CounterDescriptor;

/**
 * The counters a memory node keeps (as Aeron's SystemCounterDescriptor), in the counters file of its process beside
 * those of the driver it embeds ({@code ./dkv memory-node --counters}). All but the errors are written by the request
 * server's thread alone. Ids are kept across versions; a new counter takes the next one. The heap's are gauges, set
 * each time the node tells its clients the same in its heap's header.
 */
public enum MemoryNodeCounter implements CounterDescriptor
{
    ERRORS(0, "Errors in the request server"),
    CLIENTS_ACCEPTED(1, "Clients accepted"),
    CLIENTS_GONE(2, "Clients gone"),
    REQUESTS_ALLOCATE(3, "Requests: ALLOCATE"),
    REQUESTS_PERSIST(4, "Requests: PERSIST"),
    REQUESTS_RETIRE(5, "Requests: RETIRE"),
    REQUESTS_SPLIT(6, "Requests: SPLIT"),
    REQUESTS_MALFORMED(7, "Requests refused as malformed"),
    HEAP_FULL(8, "Chunks refused: heap full"),
    KEYS_PERSISTED(9, "Keys written to disk"),
    PERSIST_BATCHES(10, "Batches written to disk"),
    PERSIST_FAILURES(11, "Batches that could not be written"),
    KEYS_EXPIRED(12, "Keys expired by the node's scan"),
    CHUNKS_RECLAIMED(13, "Chunks reclaimed"),
    ANSWERS_QUEUED(14, "Answers queued: the client held no credit"),
    CLIENTS_HELD_BACK(15, "Turns a client's requests were left unread: its answers queued"),
    LOG_FSYNCS(16, "Key store log fsyncs for writes not fsynced (everysec)"),
    LOG_FSYNC_FAILURES(17, "Key store log fsyncs that failed"),
    REQUESTS_PERSIST_BLOCKS(18, "Requests: PERSIST_BLOCKS (messages; their keys count as PERSIST)"),
    REQUESTS_SYNC(19, "Requests: SYNC"),
    REQUESTS_PERSIST_RING(20, "Requests: PERSIST_RING (persist rings handed out)"),
    RING_ENTRIES(21, "Persist ring entries taken (their keys count as PERSIST)"),
    LATE_NOTICES(22, "Late notices: a write's notice taken after the node's durable epoch passed its epoch"),
    HEAP_HANDED_OUT(23, "Heap bytes in chunks handed out (now)"),
    HEAP_LIVE(24, "Heap bytes of live blocks (at the last walk of the index)"),
    HEAP_ROOM(25, "Heap bytes free for writes, outside the reserve for deletes (now)"),
    CHUNKS_PINNED(26, "Retired chunks a live block holds (at the last walk of the index)"),
    HEAP_LIMIT(27, "Heap bytes handed out at most to writes other than frees (share of maxmemory; 0: none)"),
    REQUESTS_LIMIT(28, "Requests: LIMIT");

    /** The type id a memory node's counters carry in its counters file, beside its driver's. */
    public static final int TYPE_ID = 2;

    private final int id;
    private final String label;

    MemoryNodeCounter(final int id, final String label)
    {
        this.id = id;
        this.label = label;
    }

    public int id()
    {
        return id;
    }

    public String label()
    {
        return label;
    }
}
