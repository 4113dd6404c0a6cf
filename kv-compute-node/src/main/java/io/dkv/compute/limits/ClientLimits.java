package io.dkv.compute.limits;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The bounds a compute node holds each client to, as redis 7.0 names and parses them, changed at run time by CONFIG SET
 * and read on every request and reply (volatile fields, no lock on the read path):
 * <ul>
 * <li>client-output-buffer-limit: per class (normal, slave, pubsub) a hard and a soft bound of the replies a connection
 * has pending, as {@link OutputBufferWatch} applies them; redis's defaults for slave and pubsub, and for normal the
 * node's {@code --client-output-limit} (redis has none: a compute node bounds every connection, as its heap and direct
 * memory are smaller than a redis-server's machine);</li>
 * <li>proto-max-bulk-len: the longest argument a request may carry (512 MB);</li>
 * <li>client-query-buffer-limit: the bytes of one request's arguments the node holds at most (longer arguments are
 * written into the store as they arrive and are not held);</li>
 * <li>maxmemory-clients: the bytes of replies pending across every connection, past which the connections holding
 * most are closed ({@link ClientsMemory}).</li>
 * </ul>
 */
public final class ClientLimits
{
    public static final String OUTPUT_BUFFER_LIMIT = "client-output-buffer-limit";
    public static final String PROTO_MAX_BULK_LEN = "proto-max-bulk-len";
    public static final String QUERY_BUFFER_LIMIT = "client-query-buffer-limit";
    public static final String MAXMEMORY_CLIENTS = "maxmemory-clients";
    /** redis's default proto-max-bulk-len. */
    public static final long DEFAULT_PROTO_MAX_BULK_LEN = 512L * 1024 * 1024;
    /** redis's default replica and pub/sub classes. */
    public static final OutputBufferLimit DEFAULT_REPLICA = new OutputBufferLimit(256L << 20, 64L << 20, 60);
    public static final OutputBufferLimit DEFAULT_PUBSUB = new OutputBufferLimit(32L << 20, 8L << 20, 60);
    private static final long MIN_BOUND = 1024 * 1024;
    private static final String[] CLASS_NAMES = {"normal", "slave", "pubsub"};
    private static final int NORMAL = 0;
    private static final int REPLICA = 1;
    private static final int PUBSUB = 2;

    private volatile OutputBufferLimit normal;
    private volatile OutputBufferLimit replica = DEFAULT_REPLICA;
    private volatile OutputBufferLimit pubsub = DEFAULT_PUBSUB;
    private volatile long protoMaxBulkLen = DEFAULT_PROTO_MAX_BULK_LEN;
    private volatile long queryBufferLimit;
    private volatile long clientsMemory;

    /**
     * @param normalHardBytes  the normal class's hard limit; 0: none.
     * @param queryBufferLimit bytes of one request's arguments held at most.
     * @param clientsMemory    bytes of replies pending across connections at most; 0: no bound.
     */
    public ClientLimits(final long normalHardBytes, final long queryBufferLimit, final long clientsMemory)
    {
        if (normalHardBytes < 0 || queryBufferLimit < 1 || clientsMemory < 0)
        {
            throw new IllegalArgumentException("normalHardBytes=" + normalHardBytes + " queryBufferLimit=" +
                queryBufferLimit + " clientsMemory=" + clientsMemory + ": none may be negative, nor the second 0");
        }
        this.normal = new OutputBufferLimit(normalHardBytes, 0, 0);
        this.queryBufferLimit = queryBufferLimit;
        this.clientsMemory = clientsMemory;
    }

    /** @return limits that bound nothing but redis's argument length, for nodes and tests that hold none. */
    public static ClientLimits unlimited()
    {
        final ClientLimits limits = new ClientLimits(0, Long.MAX_VALUE, 0);
        limits.pubsub = OutputBufferLimit.NONE;
        limits.replica = OutputBufferLimit.NONE;
        return limits;
    }

    /** @return the limit of a connection in subscribed mode (pubsub) or not (normal). */
    public OutputBufferLimit output(final boolean subscribed)
    {
        return subscribed ? pubsub : normal;
    }

    public long protoMaxBulkLen()
    {
        return protoMaxBulkLen;
    }

    public long queryBufferLimit()
    {
        return queryBufferLimit;
    }

    /** @return maxmemory-clients in bytes; 0: no bound. */
    public long clientsMemory()
    {
        return clientsMemory;
    }

    /** @return true when {@code name} (lower case) is one of these settings. */
    public static boolean has(final String name)
    {
        return name.equals(OUTPUT_BUFFER_LIMIT) || name.equals(PROTO_MAX_BULK_LEN) ||
            name.equals(QUERY_BUFFER_LIMIT) || name.equals(MAXMEMORY_CLIENTS);
    }

    /** @return the settings by their names, as CONFIG GET gives them. */
    public Map<String, String> current()
    {
        final Map<String, String> current = new LinkedHashMap<>();
        current.put(OUTPUT_BUFFER_LIMIT, normal.format(CLASS_NAMES[NORMAL]) + " " +
            replica.format(CLASS_NAMES[REPLICA]) + " " + pubsub.format(CLASS_NAMES[PUBSUB]));
        current.put(PROTO_MAX_BULK_LEN, Long.toString(protoMaxBulkLen));
        current.put(QUERY_BUFFER_LIMIT, Long.toString(queryBufferLimit));
        current.put(MAXMEMORY_CLIENTS, Long.toString(clientsMemory));
        return current;
    }

    /**
     * Check a new value of one of these settings, as redis does, and say how to apply it: CONFIG SET checks every
     * setting it is given before it changes any.
     *
     * @param name    one of these settings, lower case.
     * @param value   its new value.
     * @param changes where the change is put, to run once every setting given was checked.
     * @return null when the value is good, else why not (redis's words, which follow "CONFIG SET failed ... - ").
     */
    public String parse(final String name, final byte[] value, final List<Runnable> changes)
    {
        final String text = new String(value, StandardCharsets.ISO_8859_1);
        if (name.equals(OUTPUT_BUFFER_LIMIT))
        {
            return parseOutput(text, changes);
        }
        final Long bytes = MemoryUnits.parse(text);
        if (bytes == null)
        {
            return name.equals(MAXMEMORY_CLIENTS) ? "argument must be a memory or percent value" :
                "argument must be a memory value";
        }
        final long min = name.equals(MAXMEMORY_CLIENTS) ? 0 : MIN_BOUND;
        if (bytes < min)
        {
            return "argument must be between " + min + " and " + Long.MAX_VALUE + " inclusive";
        }
        switch (name)
        {
            case PROTO_MAX_BULK_LEN -> changes.add(() -> protoMaxBulkLen = bytes);
            case QUERY_BUFFER_LIMIT -> changes.add(() -> queryBufferLimit = bytes);
            default -> changes.add(() -> clientsMemory = bytes);
        }
        return null;
    }

    /** Redis's updateClientOutputBufferLimit: quadruples of class, hard, soft, seconds; all of them or none. */
    private String parseOutput(final String text, final List<Runnable> changes)
    {
        final String trimmed = text.strip();
        final String[] words = trimmed.isEmpty() ? new String[0] : trimmed.split("\\s+");
        if (words.length % 4 != 0)
        {
            return "Wrong number of arguments in buffer limit configuration.";
        }
        final List<Runnable> classes = new ArrayList<>();
        for (int i = 0; i < words.length; i += 4)
        {
            final int type = switch (words[i].toLowerCase(Locale.ROOT))
            {
                case "normal" -> NORMAL;
                case "slave", "replica" -> REPLICA;
                case "pubsub" -> PUBSUB;
                default -> -1;
            };
            if (type < 0)
            {
                return "Invalid client class specified in buffer limit configuration.";
            }
            final Long hard = MemoryUnits.parse(words[i + 1]);
            final Long soft = MemoryUnits.parse(words[i + 2]);
            final long seconds = seconds(words[i + 3]);
            if (hard == null || soft == null || seconds < 0)
            {
                return "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
            }
            final OutputBufferLimit limit = new OutputBufferLimit(hard, soft, seconds);
            classes.add(switch (type)
            {
                case NORMAL -> () -> normal = limit;
                case REPLICA -> () -> replica = limit;
                default -> () -> pubsub = limit;
            });
        }
        changes.addAll(classes);
        return null;
    }

    /** @return redis's strtoll of soft_seconds, whole text taken, cast to its int; -1 when it is not one. */
    private static long seconds(final String word)
    {
        if (!word.matches("[+-]?\\d{1,18}"))
        {
            return -1;
        }
        return (int)Long.parseLong(word);
    }
}
