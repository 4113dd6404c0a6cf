package io.dkv.compute.command;

import io.dkv.client.KvException;
import io.dkv.client.PersistCounts;
import io.dkv.client.keyspace.KeyPattern;
import io.dkv.client.node.MemoryNodeDisk;
import io.dkv.compute.AppendFsync;
import io.dkv.compute.limits.ClientLimits;
import io.dkv.compute.metrics.LatencySnapshot;
import io.dkv.compute.metrics.ProcessTimes;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.dkv.compute.store.PoolHeaders;
import io.dkv.format.ReservedKeys;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import static io.dkv.compute.command.CommandTable.spec;

/**
 * What clients ask of the server itself: COMMAND (COUNT, DOCS, INFO) so that redis-cli starts, and its GETKEYS and
 * GETKEYSANDFLAGS ({@link CommandKeys}); CONFIG GET with the settings that benchmarks and clients read, and INFO with
 * the node's own figures.
 */
final class ServerCommands
{
    private static final String NOTIFY_KEYSPACE_EVENTS = "notify-keyspace-events";
    private static final String APPENDONLY = "appendonly";
    private static final String APPENDFSYNC = "appendfsync";
    private static final String MAXMEMORY = "maxmemory";

    private final CommandEnvironment environment;
    private final CommandTable table;
    private final ConfigKnobs knobs;
    private final CommandKeys keys;
    private final KeyStore store;
    private final StoreThreads storeThreads;

    /**
     * @param store        the store outside transactions: where CONFIG SET of appendonly or appendfsync may be a step
     *                     (Session.mayAwait).
     * @param storeThreads where such a CONFIG SET runs when it calls the pool's other nodes, so that the loop waits on
     *                     no peer's answer.
     */
    ServerCommands(final CommandEnvironment environment, final CommandTable table, final ConfigKnobs knobs,
        final KeyStore store, final StoreThreads storeThreads)
    {
        this.environment = environment;
        this.table = table;
        this.knobs = knobs;
        this.keys = new CommandKeys(table);
        this.store = store;
        this.storeThreads = storeThreads;
    }

    List<CommandSpec> commands()
    {
        return List.of(
            new CommandSpec("command", -1, false, this::commandList, Map.of(
                "count", spec("command|count", 2,
                    (session, args, out) -> RespReplies.integer(out, table.commands().size())),
                "docs", spec("command|docs", -2,
                    (session, args, out) -> RespReplies.mapHeader(out, 0, session.protocol())),
                "info", spec("command|info", -2, this::commandInfo),
                "getkeys", spec("command|getkeys", -4, (session, args, out) -> keys.getKeys(session, args, out, false)),
                "getkeysandflags", spec("command|getkeysandflags", -4,
                    (session, args, out) -> keys.getKeys(session, args, out, true)))),
            new CommandSpec("config", -2, false, null, Map.of(
                "get", spec("config|get", -3, this::configGet),
                "set", spec("config|set", -4, this::configSet),
                "resetstat", spec("config|resetstat", 2, (session, args, out) ->
                {
                    environment.stats().commandStats().reset();
                    RespReplies.ok(out);
                }))),
            spec("info", -1, this::info),
            spec("time", 1, this::time));
    }

    private void commandList(final Session session, final byte[][] args, final ByteBuf out)
    {
        RespReplies.arrayHeader(out, table.commands().size());
        for (final CommandSpec spec : table.commands())
        {
            describe(spec, session.protocol(), out);
        }
    }

    private void commandInfo(final Session session, final byte[][] args, final ByteBuf out)
    {
        RespReplies.arrayHeader(out, args.length - 2);
        for (int i = 2; i < args.length; i++)
        {
            final String name = CommandTable.lowerCase(args[i]);
            final CommandSpec spec = table.commands().stream()
                .filter(candidate -> candidate.name().equals(name))
                .findFirst().orElse(null);
            if (spec == null)
            {
                RespReplies.nullReply(out, session.protocol());
            }
            else
            {
                describe(spec, session.protocol(), out);
            }
        }
    }

    /**
     * TIME: seconds and microseconds by the clock that judges expiry here (the client's), so that a time read from it
     * and given to PEXPIREAT means what it says; that clock counts milliseconds.
     */
    private void time(final Session session, final byte[][] args, final ByteBuf out)
    {
        final long millis = environment.client().epochClock().time();
        RespReplies.arrayHeader(out, 2);
        RespReplies.bulk(out, Long.toString(Math.floorDiv(millis, 1000)));
        RespReplies.bulk(out, Long.toString(Math.floorMod(millis, 1000) * 1000L));
    }

    /**
     * redis 7's COMMAND entry: name, arity, flags, first key, last key, step, ACL categories, tips, key specs, subs.
     */
    private static void describe(final CommandSpec spec, final int protocol, final ByteBuf out)
    {
        final boolean keyed = KEYED.containsKey(spec.name());
        final int[] keys = KEYED.getOrDefault(spec.name(), new int[]{0, 0, 0});
        RespReplies.arrayHeader(out, 10);
        RespReplies.bulk(out, spec.name());
        RespReplies.integer(out, spec.arity());
        RespReplies.setHeader(out, keyed ? 0 : 1, protocol);
        if (!keyed)
        {
            RespReplies.simple(out, "fast");
        }
        RespReplies.integer(out, keys[0]);
        RespReplies.integer(out, keys[1]);
        RespReplies.integer(out, keys[2]);
        RespReplies.setHeader(out, 0, protocol);
        RespReplies.arrayHeader(out, 0);
        RespReplies.arrayHeader(out, 0);
        RespReplies.arrayHeader(out, 0);
    }

    /** redis 7.0's sections in its order; "modules" stands for its module_list. */
    private static final List<String> SECTIONS = List.of("server", "clients", "memory", "persistence", "stats",
        "replication", "cpu", "modules", "commandstats", "errorstats", "latencystats", "cluster", "keyspace");
    /** What INFO and INFO default answer, as redis 7.0's. */
    private static final Set<String> DEFAULT_SECTIONS = Set.of("server", "clients", "memory", "persistence", "stats",
        "replication", "cpu", "module_list", "errorstats", "cluster", "keyspace");

    /** first key, last key, step: what clients that route by key read from COMMAND. */
    private static final Map<String, int[]> KEYED = Map.ofEntries(
        Map.entry("get", new int[]{1, 1, 1}), Map.entry("set", new int[]{1, 1, 1}),
        Map.entry("getset", new int[]{1, 1, 1}), Map.entry("getdel", new int[]{1, 1, 1}),
        Map.entry("append", new int[]{1, 1, 1}), Map.entry("strlen", new int[]{1, 1, 1}),
        Map.entry("incr", new int[]{1, 1, 1}), Map.entry("decr", new int[]{1, 1, 1}),
        Map.entry("incrby", new int[]{1, 1, 1}), Map.entry("decrby", new int[]{1, 1, 1}),
        Map.entry("mget", new int[]{1, -1, 1}), Map.entry("del", new int[]{1, -1, 1}),
        Map.entry("exists", new int[]{1, -1, 1}), Map.entry("mset", new int[]{1, -1, 2}),
        Map.entry("msetnx", new int[]{1, -1, 2}), Map.entry("expire", new int[]{1, 1, 1}),
        Map.entry("pexpire", new int[]{1, 1, 1}), Map.entry("expireat", new int[]{1, 1, 1}),
        Map.entry("pexpireat", new int[]{1, 1, 1}), Map.entry("ttl", new int[]{1, 1, 1}),
        Map.entry("pttl", new int[]{1, 1, 1}), Map.entry("expiretime", new int[]{1, 1, 1}),
        Map.entry("pexpiretime", new int[]{1, 1, 1}), Map.entry("persist", new int[]{1, 1, 1}),
        Map.entry("getex", new int[]{1, 1, 1}), Map.entry("setex", new int[]{1, 1, 1}),
        Map.entry("psetex", new int[]{1, 1, 1}), Map.entry("setnx", new int[]{1, 1, 1}),
        Map.entry("watch", new int[]{1, -1, 1}), Map.entry("type", new int[]{1, 1, 1}),
        Map.entry("unlink", new int[]{1, -1, 1}), Map.entry("touch", new int[]{1, -1, 1}),
        Map.entry("rename", new int[]{1, 2, 1}), Map.entry("renamenx", new int[]{1, 2, 1}),
        Map.entry("copy", new int[]{1, 2, 1}), Map.entry("getrange", new int[]{1, 1, 1}),
        Map.entry("substr", new int[]{1, 1, 1}), Map.entry("setrange", new int[]{1, 1, 1}),
        Map.entry("setbit", new int[]{1, 1, 1}), Map.entry("getbit", new int[]{1, 1, 1}),
        Map.entry("bitcount", new int[]{1, 1, 1}), Map.entry("bitpos", new int[]{1, 1, 1}),
        Map.entry("incrbyfloat", new int[]{1, 1, 1}), Map.entry("bitop", new int[]{2, -1, 1}),
        Map.entry("lcs", new int[]{1, 2, 1}), Map.entry("bitfield", new int[]{1, 1, 1}),
        Map.entry("bitfield_ro", new int[]{1, 1, 1}), Map.entry("object|encoding", new int[]{2, 2, 1}),
        Map.entry("object|refcount", new int[]{2, 2, 1}), Map.entry("object|freq", new int[]{2, 2, 1}),
        Map.entry("object|idletime", new int[]{2, 2, 1}), Map.entry("hset", new int[]{1, 1, 1}),
        Map.entry("hmset", new int[]{1, 1, 1}), Map.entry("hsetnx", new int[]{1, 1, 1}),
        Map.entry("hget", new int[]{1, 1, 1}), Map.entry("hmget", new int[]{1, 1, 1}),
        Map.entry("hdel", new int[]{1, 1, 1}), Map.entry("hlen", new int[]{1, 1, 1}),
        Map.entry("hstrlen", new int[]{1, 1, 1}), Map.entry("hexists", new int[]{1, 1, 1}),
        Map.entry("hkeys", new int[]{1, 1, 1}), Map.entry("hvals", new int[]{1, 1, 1}),
        Map.entry("hgetall", new int[]{1, 1, 1}), Map.entry("hincrby", new int[]{1, 1, 1}),
        Map.entry("hincrbyfloat", new int[]{1, 1, 1}), Map.entry("hrandfield", new int[]{1, 1, 1}),
        Map.entry("hscan", new int[]{1, 1, 1}), Map.entry("sadd", new int[]{1, 1, 1}),
        Map.entry("srem", new int[]{1, 1, 1}), Map.entry("smembers", new int[]{1, 1, 1}),
        Map.entry("sismember", new int[]{1, 1, 1}), Map.entry("smismember", new int[]{1, 1, 1}),
        Map.entry("scard", new int[]{1, 1, 1}), Map.entry("spop", new int[]{1, 1, 1}),
        Map.entry("srandmember", new int[]{1, 1, 1}), Map.entry("smove", new int[]{1, 2, 1}),
        Map.entry("sinter", new int[]{1, -1, 1}), Map.entry("sunion", new int[]{1, -1, 1}),
        Map.entry("sdiff", new int[]{1, -1, 1}), Map.entry("sinterstore", new int[]{1, -1, 1}),
        Map.entry("sunionstore", new int[]{1, -1, 1}), Map.entry("sdiffstore", new int[]{1, -1, 1}),
        Map.entry("sscan", new int[]{1, 1, 1}), Map.entry("memory|usage", new int[]{2, 2, 1}),
        // LMPOP's keys follow its numkeys (redis's COMMAND names none by position): ListMoves checks them
        Map.entry("lpush", new int[]{1, 1, 1}), Map.entry("rpush", new int[]{1, 1, 1}),
        Map.entry("lpushx", new int[]{1, 1, 1}), Map.entry("rpushx", new int[]{1, 1, 1}),
        Map.entry("lpop", new int[]{1, 1, 1}), Map.entry("rpop", new int[]{1, 1, 1}),
        Map.entry("llen", new int[]{1, 1, 1}), Map.entry("lrange", new int[]{1, 1, 1}),
        Map.entry("lindex", new int[]{1, 1, 1}), Map.entry("lset", new int[]{1, 1, 1}),
        Map.entry("linsert", new int[]{1, 1, 1}), Map.entry("lrem", new int[]{1, 1, 1}),
        Map.entry("ltrim", new int[]{1, 1, 1}), Map.entry("lpos", new int[]{1, 1, 1}),
        Map.entry("lmove", new int[]{1, 2, 1}), Map.entry("rpoplpush", new int[]{1, 2, 1}),
        // the sources of ZUNION, ZINTER, ZDIFF (and STORE), ZINTERCARD and ZMPOP follow a numkeys: checked there
        Map.entry("zadd", new int[]{1, 1, 1}), Map.entry("zincrby", new int[]{1, 1, 1}),
        Map.entry("zrem", new int[]{1, 1, 1}), Map.entry("zcard", new int[]{1, 1, 1}),
        Map.entry("zscore", new int[]{1, 1, 1}), Map.entry("zmscore", new int[]{1, 1, 1}),
        Map.entry("zrank", new int[]{1, 1, 1}), Map.entry("zrevrank", new int[]{1, 1, 1}),
        Map.entry("zpopmin", new int[]{1, 1, 1}), Map.entry("zpopmax", new int[]{1, 1, 1}),
        Map.entry("zrandmember", new int[]{1, 1, 1}), Map.entry("zscan", new int[]{1, 1, 1}),
        Map.entry("zrange", new int[]{1, 1, 1}), Map.entry("zrevrange", new int[]{1, 1, 1}),
        Map.entry("zrangebyscore", new int[]{1, 1, 1}), Map.entry("zrevrangebyscore", new int[]{1, 1, 1}),
        Map.entry("zrangebylex", new int[]{1, 1, 1}), Map.entry("zrevrangebylex", new int[]{1, 1, 1}),
        Map.entry("zcount", new int[]{1, 1, 1}), Map.entry("zlexcount", new int[]{1, 1, 1}),
        Map.entry("zremrangebyrank", new int[]{1, 1, 1}), Map.entry("zremrangebyscore", new int[]{1, 1, 1}),
        Map.entry("zremrangebylex", new int[]{1, 1, 1}), Map.entry("zunionstore", new int[]{1, 1, 1}),
        Map.entry("zinterstore", new int[]{1, 1, 1}), Map.entry("zdiffstore", new int[]{1, 1, 1}),
        Map.entry("zrangestore", new int[]{1, 2, 1}),
        // SORT's STORE destination is found by its options (SortCommand checks it); BY's and GET's keys are made
        Map.entry("sort", new int[]{1, 1, 1}), Map.entry("sort_ro", new int[]{1, 1, 1}));

    /**
     * @return the first of the request's keys that is one the store keeps for itself ({@link ReservedKeys}), or null:
     * no command reads or writes such a key for a client.
     */
    static byte[] reservedKey(final String name, final byte[][] args)
    {
        final int[] keys = KEYED.get(name);
        if (keys == null)
        {
            return null;
        }
        final int last = keys[1] < 0 ? args.length + keys[1] : Math.min(keys[1], args.length - 1);
        for (int i = keys[0]; i <= last; i += keys[2])
        {
            if (ReservedKeys.isReserved(args[i]))
            {
                return args[i];
            }
        }
        return null;
    }

    /**
     * For the keys that follow a numkeys, which the table does not know by position: answer as the table does and
     * return true when one of {@code args[from..to)} is a key the store keeps for itself.
     */
    static boolean refusedReserved(final byte[][] args, final int from, final int to, final ByteBuf out)
    {
        for (int i = from; i < to; i++)
        {
            if (ReservedKeys.isReserved(args[i]))
            {
                RespReplies.error(out, "ERR " + ReservedKeys.refusal("'" + Errors.text128(args[i]) + "'"));
                return true;
            }
        }
        return false;
    }

    private Map<String, String> settings()
    {
        final Map<String, String> settings = new LinkedHashMap<>();
        settings.put("save", "");
        // what the node's writes promise now: CONFIG SET changes them across the pool
        settings.put(APPENDONLY, environment.persistence().appendOnly() ? "yes" : "no");
        settings.put(APPENDFSYNC, environment.persistence().appendFsync().text());
        settings.put("maxmemory", Long.toString(environment.persistence().maxMemory()));
        settings.put("maxmemory-policy", "noeviction");
        settings.put("databases", "1");
        settings.put("maxclients", Integer.toString(environment.maxClients()));
        settings.put("port", Integer.toString(environment.port()));
        settings.put("timeout", "0");
        settings.put("cluster-enabled", "yes");
        settings.put("protected-mode", "no");
        settings.put("io-threads", "1");
        return settings;
    }

    /**
     * CONFIG SET name value [name value ...]: the encoding settings ({@link ConfigKnobs}), notify-keyspace-events, and
     * appendonly and appendfsync ({@link Persistence}, on every node of the pool), all or none.
     */
    private void configSet(final Session session, final byte[][] args, final ByteBuf out)
    {
        if ((args.length & 1) != 0)
        {
            RespReplies.error(out, Errors.SYNTAX);
            return;
        }
        if ((environment.persistence().callsPeers() && setsPersistence(args) || setsMaxMemory(args)) &&
            session.mayAwait(store))
        {
            // the pool's other nodes (maxmemory: its memory nodes) are called in turn: on a store thread, a step, so
            // that the loop waits on none
            storeThreads.offload(session, null, reply -> configSet(args, reply));
            return;
        }
        configSet(args, out);
    }

    private static boolean setsMaxMemory(final byte[][] args)
    {
        for (int i = 2; i < args.length; i += 2)
        {
            if (CommandTable.lowerCase(args[i]).equals(MAXMEMORY))
            {
                return true;
            }
        }
        return false;
    }

    private static boolean setsPersistence(final byte[][] args)
    {
        for (int i = 2; i < args.length; i += 2)
        {
            final String name = CommandTable.lowerCase(args[i]);
            if (name.equals(APPENDONLY) || name.equals(APPENDFSYNC))
            {
                return true;
            }
        }
        return false;
    }

    private void configSet(final byte[][] args, final ByteBuf out)
    {
        final Map<String, String> fixed = settings();
        final List<String> names = new ArrayList<>();
        final List<byte[]> values = new ArrayList<>();
        int events = -2;
        final List<Runnable> limitChanges = new ArrayList<>();
        final List<String> limitNames = new ArrayList<>();
        Boolean appendOnly = null;
        AppendFsync fsync = null;
        Long maxMemory = null;
        String persistenceArgument = null;
        for (int i = 2; i < args.length; i += 2)
        {
            final String name = CommandTable.lowerCase(args[i]);
            if (name.equals(APPENDONLY) || name.equals(APPENDFSYNC))
            {
                if (name.equals(APPENDONLY) ? appendOnly != null : fsync != null)
                {
                    RespReplies.error(out, ConfigKnobs.failed(name, "duplicate parameter"));
                    return;
                }
                final String value = Errors.text(args[i + 1]);
                if (name.equals(APPENDONLY))
                {
                    appendOnly = AppendFsync.parseYesNo(value);
                    if (appendOnly == null)
                    {
                        RespReplies.error(out, ConfigKnobs.failed(name, "argument must be 'yes' or 'no'"));
                        return;
                    }
                }
                else
                {
                    fsync = AppendFsync.parse(value);
                    if (fsync == null)
                    {
                        RespReplies.error(out, ConfigKnobs.failed(name,
                            "argument(s) must be one of the following: " + AppendFsync.ACCEPTED));
                        return;
                    }
                }
                persistenceArgument = persistenceArgument == null ? name : persistenceArgument;
                continue;
            }
            if (name.equals(NOTIFY_KEYSPACE_EVENTS))
            {
                if (events != -2)
                {
                    RespReplies.error(out, "ERR CONFIG SET failed (possibly related to argument '" + name + "') - " +
                        "duplicate parameter");
                    return;
                }
                events = KeyspaceEvents.parse(args[i + 1]);
                if (events == -1)
                {
                    RespReplies.error(out, "ERR CONFIG SET failed (possibly related to argument '" + name + "') - " +
                        "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
                    return;
                }
                continue;
            }
            if (ClientLimits.has(name))
            {
                if (limitNames.contains(name))
                {
                    RespReplies.error(out, ConfigKnobs.failed(name, "duplicate parameter"));
                    return;
                }
                limitNames.add(name);
                final String why = environment.clientLimits().parse(name, args[i + 1], limitChanges);
                if (why != null)
                {
                    RespReplies.error(out, ConfigKnobs.failed(name, why));
                    return;
                }
                continue;
            }
            if (name.equals(MAXMEMORY))
            {
                if (maxMemory != null)
                {
                    RespReplies.error(out, ConfigKnobs.failed(name, "duplicate parameter"));
                    return;
                }
                maxMemory = ConfigKnobs.memory(args[i + 1]);
                if (maxMemory == null)
                {
                    RespReplies.error(out, ConfigKnobs.failed(name, "argument must be a memory value"));
                    return;
                }
                continue;
            }
            // a setting fixed at start, given the value it has, is set already (redis's tests set save "" so)
            if (!Errors.text(args[i + 1]).equals(fixed.get(name)))
            {
                names.add(name);
                values.add(args[i + 1]);
            }
        }
        // checked before appendonly and appendfsync change (across the pool), set after: all or none
        final String error = knobs.check(names, values, fixed::containsKey);
        if (error != null)
        {
            RespReplies.error(out, error);
            return;
        }
        if (persistenceArgument != null)
        {
            final String failed = environment.persistence().set(appendOnly, fsync, persistenceArgument);
            if (failed != null)
            {
                RespReplies.error(out, failed);
                return;
            }
        }
        if (maxMemory != null)
        {
            try
            {
                environment.persistence().maxMemory(maxMemory);
            }
            catch (final KvException ex)
            {
                RespReplies.error(out, ConfigKnobs.failed(MAXMEMORY, ex.getMessage()));
                return;
            }
        }
        knobs.set(names, values, fixed::containsKey);
        limitChanges.forEach(Runnable::run);
        if (events >= 0)
        {
            table.keyspaceEvents().flags(events);
        }
        RespReplies.ok(out);
    }

    private void configGet(final Session session, final byte[][] args, final ByteBuf out)
    {
        final List<Map.Entry<String, String>> matched = new ArrayList<>();
        final Map<String, String> all = settings();
        all.putAll(knobs.current());
        all.putAll(environment.clientLimits().current());
        all.put(NOTIFY_KEYSPACE_EVENTS, KeyspaceEvents.format(table.keyspaceEvents().flags()));
        for (int i = 2; i < args.length; i++)
        {
            // an older name asked for as it is: answered under that name, as redis does
            final String asked = CommandTable.lowerCase(args[i]);
            if (knobs.has(asked) && !all.containsKey(asked))
            {
                matched.add(Map.entry(Errors.text(args[i]), knobs.get(asked)));
            }
        }
        for (final Map.Entry<String, String> setting : all.entrySet())
        {
            for (int i = 2; i < args.length; i++)
            {
                if (KeyPattern.ignoringCase(args[i]).matches(setting.getKey().getBytes(StandardCharsets.US_ASCII)))
                {
                    matched.add(setting);
                    break;
                }
            }
        }
        RespReplies.mapHeader(out, matched.size(), session.protocol());
        for (final Map.Entry<String, String> setting : matched)
        {
            RespReplies.bulk(out, setting.getKey());
            RespReplies.bulk(out, setting.getValue());
        }
    }

    /**
     * INFO [section ...] as redis 7.0 chooses: none or "default" the default sections, "all" every one, "everything"
     * every one too (this node has no modules), other names those sections, case aside; sections in redis's order.
     */
    private void info(final Session session, final byte[][] args, final ByteBuf out)
    {
        final NodeStats stats = environment.stats();
        final Set<String> asked = new HashSet<>();
        boolean all = false;
        if (args.length == 1)
        {
            asked.addAll(DEFAULT_SECTIONS);
        }
        for (int i = 1; i < args.length; i++)
        {
            final String name = CommandTable.lowerCase(args[i]);
            switch (name)
            {
                case "default" -> asked.addAll(DEFAULT_SECTIONS);
                case "all", "everything" -> all = true;
                default -> asked.add(name);
            }
        }
        final StringBuilder text = new StringBuilder();
        for (final String section : SECTIONS)
        {
            if (all || asked.contains(section) || (section.equals("modules") && asked.contains("module_list")))
            {
                if (!text.isEmpty())
                {
                    text.append("\r\n");
                }
                text.append("# ").append(section.equals("cpu") ? "CPU" :
                    Character.toUpperCase(section.charAt(0)) + section.substring(1))
                    .append("\r\n").append(section(section, stats));
            }
        }
        RespReplies.text(out, text.toString(), session.protocol());
    }

    private String section(final String section, final NodeStats stats)
    {
        return switch (section)
        {
            case "server" -> "redis_version:" + ConnectionCommands.REDIS_VERSION + "\r\n" +
                "dkv_role:compute\r\n" +
                "dkv_node_id:" + environment.nodeId() + "\r\n" +
                "redis_mode:cluster\r\n" +
                "os:" + System.getProperty("os.name") + " " + System.getProperty("os.arch") + "\r\n" +
                "process_id:" + ProcessHandle.current().pid() + "\r\n" +
                "tcp_port:" + environment.port() + "\r\n" +
                "uptime_in_seconds:" + stats.uptimeSeconds() + "\r\n" +
                "uptime_in_days:" + stats.uptimeSeconds() / 86_400 + "\r\n";
            case "clients" -> "connected_clients:" + stats.connectedNow() + "\r\n" +
                "maxclients:" + environment.maxClients() + "\r\n" +
                "blocked_clients:" + environment.waiters().blocked() + "\r\n" +
                "dkv_clients_output_bytes:" + stats.clientsOutputBytes() + "\r\n";
            case "memory" -> PoolMemoryInfo.render(environment.persistence().pool(),
                environment.persistence().poolPeak(), environment.persistence().maxMemory(),
                environment.persistence().nowEpochMs(), table.cachedScripts());
            case "persistence" -> persistenceSection();
            case "stats" -> statsSection(stats);
            case "replication" -> "role:master\r\nconnected_slaves:0\r\nmaster_repl_offset:0\r\n";
            case "cpu" -> cpuSection(stats);
            case "commandstats" -> commandStats(stats.commandStats());
            case "errorstats" -> errorStats(stats.commandStats());
            case "cluster" -> "cluster_enabled:1\r\n";
            default -> "";
        };
    }

    /**
     * redis's loading, aof_enabled (appendonly) and aof_last_write_status (err while a memory node's last fsync
     * failed or its disk refuses writes), then dkv's own: appendfsync; the PERSIST requests the client sent the
     * memory nodes (one per copy of a key written), those not sent or (always) not answered yet, and the writes not
     * confirmed on disk; and the memory nodes' disks as last read (at most a second ago): the oldest last fsync, the
     * oldest write not fsynced yet, the lag's p99, how far behind now the durable epoch ends (the worst node's each:
     * the pool's durable epoch is its least), how far behind now the cluster's durable epoch D ends as the nodes were
     * last raised to it (the worst node's; -1 before any client raised one: key versions are kept from D on), then a
     * line per node.
     */
    private String persistenceSection()
    {
        final Persistence persistence = environment.persistence();
        final PersistCounts counts = persistence.counts();
        final PoolHeaders.Reading reading = persistence.pool();
        final long now = persistence.nowEpochMs();
        final StringBuilder nodes = new StringBuilder();
        int onDisk = 0;
        boolean failed = false;
        long lastFsyncAge = 0;
        long unsynced = 0;
        int lagP99 = 0;
        long durableLag = 0;
        long clusterDurableLag = 0;
        for (final MemoryNodeDisk disk : reading.disks())
        {
            final String id = Long.toUnsignedString(disk.nodeId());
            if (!disk.reachable())
            {
                nodes.append("dkv_memory_node_").append(id).append(":unreachable\r\n");
                continue;
            }
            if (!disk.persistent())
            {
                nodes.append("dkv_memory_node_").append(id).append(":disk=no\r\n");
                continue;
            }
            onDisk++;
            failed |= !disk.lastFsyncOk();
            final long age = disk.lastFsyncEpochMs() == 0 ? -1 : Math.max(0, now - disk.lastFsyncEpochMs());
            final long behind = disk.unsyncedSinceEpochMs() == 0 ? 0 : Math.max(0, now - disk.unsyncedSinceEpochMs());
            lastFsyncAge = age < 0 || lastFsyncAge < 0 ? -1 : Math.max(lastFsyncAge, age);
            unsynced = Math.max(unsynced, behind);
            lagP99 = Math.max(lagP99, disk.lagP99Ms());
            // a write of an epoch after the durable one may be lost from every copy at once, and its transaction
            // with it: how much of the recent past a loss of all of them takes back
            final long durableBehind = Math.max(0, now - (disk.durableEpoch() + 1) * persistence.epochMs());
            durableLag = Math.max(durableLag, durableBehind);
            final long clusterBehind = disk.clusterDurableEpoch() == 0 ? -1 :
                Math.max(0, now - (disk.clusterDurableEpoch() + 1) * persistence.epochMs());
            clusterDurableLag = clusterBehind < 0 || clusterDurableLag < 0 ? -1 :
                Math.max(clusterDurableLag, clusterBehind);
            nodes.append("dkv_memory_node_").append(id).append(":disk=yes,last_fsync_age_ms=").append(age)
                .append(",last_fsync_status=").append(disk.lastFsyncOk() ? "ok" : "err")
                .append(",unsynced_ms=").append(behind).append(",fsync_lag_p99_ms=").append(disk.lagP99Ms())
                .append(",durable_lag_ms=").append(durableBehind)
                .append(",cluster_durable_lag_ms=").append(clusterBehind).append("\r\n");
        }
        return "loading:0\r\n" +
            "aof_enabled:" + (persistence.appendOnly() ? 1 : 0) + "\r\n" +
            "dkv_appendfsync:" + persistence.appendFsync().text() + "\r\n" +
            "dkv_persists_told:" + counts.told() + "\r\n" +
            "dkv_persists_pending:" + counts.pending() + "\r\n" +
            "dkv_persist_failures:" + counts.failed() + "\r\n" +
            "aof_last_write_status:" + (failed ? "err" : "ok") + "\r\n" +
            "dkv_memory_nodes_on_disk:" + onDisk + "\r\n" +
            "dkv_last_fsync_age_ms:" + (onDisk == 0 ? -1 : lastFsyncAge) + "\r\n" +
            "dkv_unsynced_ms:" + unsynced + "\r\n" +
            "dkv_fsync_lag_p99_ms:" + lagP99 + "\r\n" +
            "dkv_durable_lag_ms:" + durableLag + "\r\n" +
            "dkv_cluster_durable_lag_ms:" + (onDisk == 0 ? -1 : clusterDurableLag) + "\r\n" +
            "dkv_disks_read_ms_ago:" + (reading.readAtEpochMs() == 0 ? -1 : now - reading.readAtEpochMs()) + "\r\n" +
            nodes;
    }

    /** redis's getrusage figures: this process's and its children's user and system CPU time. */
    private static String cpuSection(final NodeStats stats)
    {
        final long[] micros = stats.times().micros();
        return "used_cpu_sys:" + ProcessTimes.timeval(micros[1]) + "\r\n" +
            "used_cpu_user:" + ProcessTimes.timeval(micros[0]) + "\r\n" +
            "used_cpu_sys_children:" + ProcessTimes.timeval(micros[3]) + "\r\n" +
            "used_cpu_user_children:" + ProcessTimes.timeval(micros[2]) + "\r\n";
    }

    private static String commandStats(final CommandStats stats)
    {
        final StringBuilder text = new StringBuilder();
        stats.forEachCommand((name, figures) -> text.append("cmdstat_").append(name)
            .append(":calls=").append(figures[0])
            .append(",usec=").append(figures[1])
            .append(",usec_per_call=").append(hundredths(figures[0] == 0 ? 0 : (double)figures[1] / figures[0]))
            .append(",rejected_calls=").append(figures[2])
            .append(",failed_calls=").append(figures[3]).append("\r\n"));
        return text.toString();
    }

    private static String errorStats(final CommandStats stats)
    {
        final StringBuilder text = new StringBuilder();
        stats.forEachError((prefix, count) ->
            text.append("errorstat_").append(prefix).append(":count=").append(count).append("\r\n"));
        return text.toString();
    }

    private static String statsSection(final NodeStats stats)
    {
        final LatencySnapshot latency = stats.latency().snapshot();
        return "total_connections_received:" + stats.connectionsReceived() + "\r\n" +
            "total_commands_processed:" + stats.commandsProcessed() + "\r\n" +
            "instantaneous_ops_per_sec:" + stats.instantaneousOpsPerSec() + "\r\n" +
            "rejected_connections:" + stats.connectionsRejected() + "\r\n" +
            "total_error_replies_protocol:" + stats.protocolErrors() + "\r\n" +
            "evicted_clients:" + stats.clientsEvicted() + "\r\n" +
            "dkv_batched_gets:" + stats.batchedReads() + "\r\n" +
            "dkv_get_batches:" + stats.readBatches() + "\r\n" +
            "dkv_async_steps:" + stats.asyncSteps() + "\r\n" +
            "dkv_store_thread_steps:" + stats.storeThreadSteps() + "\r\n" +
            "dkv_pieces_sweeps:" + stats.piecesSweeps() + "\r\n" +
            "dkv_pieces_swept:" + stats.piecesSwept() + "\r\n" +
            "dkv_pieces_sweep_failures:" + stats.piecesSweepFailures() + "\r\n" +
            "dkv_output_limit_closes:" + stats.outputLimitCloses() + "\r\n" +
            "dkv_auth_failures:" + stats.authFailures() + "\r\n" +
            "dkv_command_p50_usec:" + hundredths(latency.p50Nanos() / 1e3) + "\r\n" +
            "dkv_command_p99_usec:" + hundredths(latency.p99Nanos() / 1e3) + "\r\n" +
            "dkv_cpu_utilization:" + hundredths(stats.cpu().utilization()) + "\r\n";
    }

    /** redis's way with a fraction in INFO (usec_per_call): two decimals, a point whatever the locale. */
    private static String hundredths(final double value)
    {
        return String.format(Locale.ROOT, "%.2f", value);
    }
}
