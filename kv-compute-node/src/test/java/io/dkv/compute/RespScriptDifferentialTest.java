package io.dkv.compute;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Scripts and functions answer as redis-server 7.0's do, reply for reply, in RESP2 and RESP3: EVAL, EVALSHA and their
 * _RO forms, SCRIPT LOAD, EXISTS and FLUSH, FUNCTION LOAD, LIST, DELETE and FLUSH, FCALL and FCALL_RO; the
 * conversions both ways between replies and Lua values (integers, bulk strings, nil, arrays cut at a nil, status and
 * error tables, booleans, floats truncated, RESP3's types after redis.setresp(3)); redis.call's and redis.pcall's
 * errors, error_reply and status_reply, the sandbox's errors (a global read or written), read-only scripts refused
 * writes, and the errors of arguments.
 */
class RespScriptDifferentialTest
{
    @RegisterExtension
    static final StoreBesideRedis SERVERS = new StoreBesideRedis();

    /** The sha1 of "return 'kept'". */
    private static final String KEPT_SHA = "831718c21eb8cace8e6f31e7782a9d8e38ed5600";
    private static final String SINGLE = "#!lua name=single\n" +
        "redis.register_function{function_name='only', callback=function() return 1 end, " +
        "flags={'allow-stale', 'no-writes'}, description='the one'}";
    private static final String LIBRARY = "#!lua name=mylib\n" +
        "redis.register_function('myset', function(keys, args) return redis.call('set', keys[1], args[1]) end)\n" +
        "redis.register_function{function_name='myget', callback=function(keys, args) " +
        "return redis.call('get', keys[1]) end, flags={'no-writes'}, description='reads a key'}\n";

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void evalAnswersAsRedis(final int protocol) throws Exception
    {
        try (RawResp redis = open(SERVERS.redis().port(), protocol);
            RawResp dkv = open(SERVERS.store().port(), protocol))
        {
            both(redis, dkv, "FLUSHALL");
            both(redis, dkv, "SCRIPT", "FLUSH");
            for (final List<String> command : List.of(
                // values made replies
                List.of("EVAL", "return 1", "0"),
                List.of("EVAL", "return 3.99", "0"),
                List.of("EVAL", "return -3.99", "0"),
                List.of("EVAL", "return 'hello'", "0"),
                List.of("EVAL", "return true", "0"),
                List.of("EVAL", "return false", "0"),
                List.of("EVAL", "return nil", "0"),
                List.of("EVAL", "return {1, 2, 3, 'four', {5, {6}}}", "0"),
                List.of("EVAL", "return {1, 2, nil, 4}", "0"),
                List.of("EVAL", "return {1, false, 3}", "0"),
                List.of("EVAL", "return {ok='fine'}", "0"),
                List.of("EVAL", "return {err='My error'}", "0"),
                List.of("EVAL", "return redis.status_reply('STATUS')", "0"),
                List.of("EVAL", "return redis.error_reply('My Error')", "0"),
                List.of("EVAL", "return redis.error_reply('-CODE some text')", "0"),
                List.of("EVAL", "return redis.error_reply(1)", "0"),
                List.of("EVAL", "return redis.status_reply()", "0"),
                List.of("EVAL", "return {KEYS[1], KEYS[2], ARGV[1], ARGV[2]}", "2", "k1", "k2", "a1", "a2"),
                List.of("EVAL", "return #KEYS + #ARGV", "1", "k", "a", "b"),
                // replies made values
                List.of("EVAL", "redis.call('set', KEYS[1], ARGV[1]); return redis.call('get', KEYS[1])", "1",
                    "s", "value"),
                List.of("EVAL", "return redis.call('incr', KEYS[1])", "1", "n"),
                List.of("EVAL", "return type(redis.call('incr', KEYS[1]))", "1", "n"),
                List.of("EVAL", "return redis.call('get', 'nothing')", "0"),
                List.of("EVAL", "return type(redis.call('get', 'nothing'))", "0"),
                List.of("EVAL", "local r = redis.call('set', 'x', 'y'); return r['ok']", "0"),
                List.of("EVAL", "return redis.call('set', 'x', 'y')", "0"),
                List.of("EVAL", "redis.call('rpush', 'l', 'a', 'b', 'c'); return redis.call('lrange', 'l', 0, -1)",
                    "0"),
                List.of("EVAL", "return redis.call('hgetall', 'nohash')", "0"),
                List.of("EVAL", "return redis.call('set', 'f', 0.1)", "0"),
                List.of("GET", "f"),
                List.of("EVAL", "return redis.call('incrby', 'n', 5)", "0"),
                List.of("EVAL", "return redis.pcall('incr', 's')", "0"),
                List.of("EVAL", "local e = redis.pcall('incr', 's'); return e['err']", "0"),
                List.of("EVAL", "return redis.pcall('nosuchcommand')", "0"),
                List.of("EVAL", "return redis.pcall('get')", "0"),
                List.of("EVAL", "return redis.pcall()", "0"),
                List.of("EVAL", "return redis.pcall('get', {})", "0"),
                List.of("EVAL", "return redis.sha1hex('Pizza & Mandolino')", "0"),
                List.of("EVAL", "return redis.sha1hex('')", "0"),
                List.of("EVAL", "return pcall(function() return 1 end)", "0"),
                List.of("EVAL", "local ok, e = pcall(function() redis.call('incr', 's') end); return e", "0"),
                List.of("EVAL", "return tostring(10 / 2)", "0"),
                List.of("EVAL", "return string.format('%d-%s', 7, 'x')", "0"),
                List.of("EVAL", "return table.concat({'a', 'b'}, ',')", "0"),
                List.of("EVAL", "return math.floor(7.9)", "0"),
                List.of("EVAL", "return unpack({1, 2})", "0"),
                List.of("EVAL", "return redis.REDIS_VERSION", "0"),
                List.of("EVAL", "return {bit.band(0xff, 0x0f, 7), bit.bor(1, 2), bit.bxor(3, 1), bit.bnot(0)}", "0"),
                List.of("EVAL", "return {bit.lshift(1, 31), bit.rshift(-1, 28), bit.arshift(-16, 2), " +
                    "bit.rol(1, 33), bit.tobit(2^32 + 5)}", "0"),
                List.of("EVAL", "return {bit.tohex(255), bit.tohex(-1, -4), bit.tohex(65535, 2)}", "0"),
                List.of("EVAL", "bit.band = nil", "0"),
                List.of("EVAL", "return cjson.encode({1, 2, 'x', {a='b/c\\n'}, true, false})", "0"),
                List.of("EVAL", "return cjson.encode({0.1, 1e20, -3, 1/3, 12345678901234567})", "0"),
                List.of("EVAL", "return cjson.encode({})", "0"),
                List.of("EVAL", "return cjson.encode({[1]='a', [3]='c'})", "0"),
                List.of("EVAL", "return cjson.encode({[20]='far'})", "0"),
                List.of("EVAL", "local t = cjson.decode('{\"a\": [1, 2.5, {\"b\": null}], \"s\": \"\\u00e9x\"}') " +
                    "return {t.a[1], tostring(t.a[2]), t.a[3].b == cjson.null, t.s, #t.a}", "0"),
                List.of("EVAL", "return cjson.decode('[\"x\", true, false]')", "0"),
                List.of("EVAL", "cjson.encode = nil", "0"),
                List.of("EVAL", "local h = '' for _, v in ipairs({cmsgpack.pack(0.1, 0.5, -1099511627776, 300, -33, " +
                    "'x', {1, 2}, {a=true}, false, nil, string.rep('y', 40))}) do h = h .. string.format('%02x', " +
                    "string.byte(v)) end return h", "0"),
                List.of("EVAL", "local s = cmsgpack.pack({1, {2, 'z'}, {k=-7}}, 65536, 2^40) " +
                    "local a, b, c = cmsgpack.unpack(s) " +
                    "return {a[2][2], a[3].k, b, c, select('#', cmsgpack.unpack(s))}", "0"),
                List.of("EVAL", "local s = cmsgpack.pack('one', 'two') local o, v = cmsgpack.unpack_one(s) " +
                    "local o2, v2 = cmsgpack.unpack_limit(s, 1, o) return {o, v, o2, v2}", "0"),
                List.of("EVAL", "return cmsgpack.unpack('\\217')", "0"),
                List.of("EVAL", "cmsgpack.pack = nil", "0"),
                List.of("EVAL", "return {tostring(0.0003), tostring(1/3), tostring(2^53), tostring(-0.5), " +
                    "table.concat({1, 0.25, 'x', 1e20}, ',')}", "0"),
                List.of("EVAL", "cjson.encode_max_depth(1) return {pcall(cjson.encode, {{1}})}", "0"),
                // (redis keeps cjson's settings for the scripts after, dkv for the run: set back here)
                List.of("EVAL", "cjson.encode_max_depth(1000) return cjson.encode({{1}})", "0"),
                List.of("EVAL", "return pcall(nil)", "0"),
                // errors raised
                List.of("EVAL", "return redis.call('incr', 's')", "0"),
                List.of("EVAL", "return redis.call('nosuchcommand')", "0"),
                List.of("EVAL", "return redis.call('get')", "0"),
                List.of("EVAL", "return redis.call('multi')", "0"),
                List.of("EVAL", "return redis.pcall('blpop', 'bq', 0)", "0"),
                List.of("EVAL", "return redis.pcall('subscribe', 'ch')", "0"),
                List.of("EVAL", "return redis.call('blmpop', 0, 1, 'bq', 'LEFT')", "0"),
                List.of("EVAL", "redis.call('rpush', 'bq', 'a', 'b') return redis.call('blmpop', 0, 1, 'bq', 'LEFT')",
                    "0"),
                List.of("EVAL", "return redis.call('bzmpop', 0, 1, 'bz', 'MIN')", "0"),
                List.of("EVAL", "return redis.call('publish', 'ch', 'from a script')", "0"),
                List.of("EVAL", "return redis.call('eval', 'return 1', '0')", "0"),
                List.of("EVAL", "error('boom')", "0"),
                List.of("EVAL", "error({err='CUSTOM failure'})", "0"),
                List.of("EVAL", "\n\nerror('on line three')", "0"),
                List.of("EVAL", "redis.call('set', 'written', 'before'); error('after')", "0"),
                List.of("GET", "written"),
                List.of("EVAL", "return a", "0"),
                List.of("EVAL", "a = 10", "0"),
                List.of("EVAL", "redis.call = function() return 1 end", "0"),
                List.of("EVAL", "setmetatable(_G, {})", "0"),
                List.of("EVAL", "string.upper = nil", "0"),
                List.of("EVAL", "print('x')", "0"),
                List.of("EVAL", "loadfile('x')", "0"),
                List.of("EVAL", "os.exit()", "0"),
                List.of("EVAL", "return redis.setresp(4)", "0"),
                List.of("EVAL", "return redis.log(redis.LOG_WARNING, 'logged')", "0"),
                List.of("EVAL", "return redis.log(9, 'logged')", "0"),
                // arguments
                List.of("EVAL", "return 1", "-1"),
                List.of("EVAL", "return 1", "2", "a"),
                List.of("EVAL", "return 1", "x"),
                List.of("EVAL", "return 1"),
                List.of("EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0"),
                List.of("EVALSHA", "short", "0"),
                List.of("EVAL", "return 1 +", "0"),
                List.of("EVAL", "#!lua flags=no-writes\nreturn redis.call('set', 'x', 'y')", "0"),
                List.of("EVAL", "#!lua flags=no-writes\nreturn redis.call('get', 'x')", "0"),
                List.of("EVAL", "#!lua flags=bogus\nreturn 1", "0"),
                List.of("EVAL", "#!lua bogus=1\nreturn 1", "0"),
                List.of("EVAL", "#!python\nreturn 1", "0"),
                List.of("EVAL", "#!lua", "0"),
                List.of("EVAL_RO", "return redis.call('set', 'x', 'y')", "0"),
                List.of("EVAL_RO", "return redis.call('get', 'x')", "0"),
                List.of("EVAL_RO", "#!lua\nreturn 1", "0"),
                List.of("EVAL_RO", "#!lua flags=no-writes\nreturn 1", "0"),
                // inside MULTI: queued, then run in EXEC's transaction
                List.of("MULTI"),
                List.of("EVAL", "return redis.call('incr', KEYS[1])", "1", "m"),
                List.of("FCALL_RO", "nosuch", "0"),
                List.of("EVAL", "return redis.call('incr', KEYS[1]) + 10", "1", "m"),
                List.of("EXEC"),
                // the cache of scripts
                List.of("SCRIPT", "LOAD", "return 'loaded'"),
                List.of("EVALSHA", "4e12d1f5a6ea5b9ce87f1b7cf1d6c6f2f17ec2b2", "0"),
                List.of("EVALSHA", "b534286061d4b9e4026607613b95c06c06015ae8", "0"),
                List.of("EVALSHA_RO", "b534286061d4b9e4026607613b95c06c06015ae8", "0"),
                List.of("SCRIPT", "EXISTS", "b534286061d4b9e4026607613b95c06c06015ae8", "ffff"),
                List.of("SCRIPT", "LOAD", "return +"),
                List.of("SCRIPT", "FLUSH", "BOGUS"),
                List.of("SCRIPT", "FLUSH", "SYNC"),
                List.of("SCRIPT", "EXISTS", "b534286061d4b9e4026607613b95c06c06015ae8"),
                List.of("EVALSHA", "b534286061d4b9e4026607613b95c06c06015ae8", "0"),
                List.of("SCRIPT", "KILL"),
                List.of("SCRIPT", "BOGUS"),
                List.of("SCRIPT", "HELP")))
            {
                compare(redis, dkv, command);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void resp3ConversionsAfterSetResp(final int protocol) throws Exception
    {
        try (RawResp redis = open(SERVERS.redis().port(), protocol);
            RawResp dkv = open(SERVERS.store().port(), protocol))
        {
            both(redis, dkv, "FLUSHALL");
            both(redis, dkv, "HSET", "h", "f", "v");
            both(redis, dkv, "SADD", "set", "m");
            for (final List<String> command : List.of(
                List.of("EVAL", "redis.setresp(3); return redis.call('hgetall', 'h')", "0"),
                List.of("EVAL", "redis.setresp(3); return redis.call('smembers', 'set')", "0"),
                List.of("EVAL", "redis.setresp(3); return redis.call('get', 'nothing')", "0"),
                List.of("EVAL", "redis.setresp(3); return type(redis.call('get', 'nothing'))", "0"),
                List.of("EVAL", "redis.setresp(3); return true", "0"),
                List.of("EVAL", "redis.setresp(3); return false", "0"),
                List.of("EVAL", "return {double=3.5}", "0"),
                List.of("EVAL", "return {big_number='123456789012345678901234567890'}", "0"),
                List.of("EVAL", "return {map={a=1}}", "0"),
                List.of("EVAL", "return {set={a=true}}", "0"),
                List.of("EVAL", "return {verbatim_string={format='txt', string='hello'}}", "0"),
                List.of("EVAL", "redis.setresp(3); return redis.call('hget', 'h', 'f')", "0"),
                List.of("EVAL", "redis.setresp(3); local m = redis.call('hgetall', 'h'); return m['map']['f']", "0")))
            {
                compare(redis, dkv, command);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void functionsAnswerAsRedis(final int protocol) throws Exception
    {
        try (RawResp redis = open(SERVERS.redis().port(), protocol);
            RawResp dkv = open(SERVERS.store().port(), protocol))
        {
            both(redis, dkv, "FLUSHALL");
            both(redis, dkv, "FUNCTION", "FLUSH");
            for (final List<String> command : List.of(
                List.of("FUNCTION", "LOAD", LIBRARY),
                List.of("FUNCTION", "LOAD", LIBRARY),
                List.of("FUNCTION", "LOAD", "REPLACE", LIBRARY),
                List.of("FCALL", "myset", "1", "k", "v"),
                List.of("FCALL", "myget", "1", "k"),
                List.of("FCALL_RO", "myget", "1", "k"),
                List.of("FCALL_RO", "myset", "1", "k", "v"),
                List.of("FCALL", "nosuch", "0"),
                List.of("FCALL", "myget", "x"),
                List.of("FCALL", "myget", "-1"),
                List.of("FCALL", "myget", "3", "k"),
                // (redis lists a library's functions in its dict's order, which varies: one function here)
                List.of("FUNCTION", "LOAD", SINGLE),
                List.of("FUNCTION", "LIST", "LIBRARYNAME", "sing*"),
                List.of("FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "SINGLE"),
                List.of("FUNCTION", "LIST", "LIBRARYNAME", "other*"),
                List.of("FCALL_RO", "only", "0"),
                List.of("FUNCTION", "LIST", "LIBRARYNAME"),
                List.of("FUNCTION", "LIST", "BOGUS"),
                List.of("FUNCTION", "LOAD", "#!lua name=other\nredis.register_function('myset', function() end)"),
                List.of("FUNCTION", "LOAD", "#!lua name=empty\nlocal x = 1"),
                List.of("FUNCTION", "LOAD", "return 1"),
                List.of("FUNCTION", "LOAD", "#!lua\nreturn 1"),
                List.of("FUNCTION", "LOAD", "#!lua name=bad-name\nreturn 1"),
                List.of("FUNCTION", "LOAD", "#!js name=x\nreturn 1"),
                List.of("FUNCTION", "LOAD", "#!lua name=x foo=bar\nreturn 1"),
                List.of("FUNCTION", "LOAD", "#!lua name=x\nredis.call('ping')"),
                List.of("FUNCTION", "LOAD", "#!lua name=x\nerror('at load')"),
                List.of("FUNCTION", "LOAD", "#!lua name=x\nredis.register_function('f')"),
                List.of("FUNCTION", "LOAD", "#!lua name=x\nredis.register_function('f', 1)"),
                List.of("FUNCTION", "LOAD", "#!lua name=x\nredis.register_function{function_name='f'}"),
                List.of("FUNCTION", "LOAD", "#!lua name=x\nredis.register_function{function_name='f', " +
                    "callback=function() end, flags={'bogus'}}"),
                List.of("FUNCTION", "LOAD", "#!lua name=x\nredis.register_function('f', function() end)\n" +
                    "redis.register_function('f', function() end)"),
                List.of("FUNCTION", "LOAD", "#!lua name=x\nredis.register_function('bad name', function() end)"),
                List.of("FUNCTION", "LOAD", "#!lua name=errs\nredis.register_function('boom', " +
                    "function(keys, args) error('failed') end)\nredis.register_function('g', " +
                    "function(keys, args) return g2 end)"),
                List.of("FCALL", "boom", "0"),
                List.of("FCALL", "g", "0"),
                List.of("FUNCTION", "DELETE", "errs"),
                List.of("FUNCTION", "DELETE", "errs"),
                List.of("FUNCTION", "DELETE", "mylib"),
                List.of("FUNCTION", "LIST"),
                List.of("FUNCTION", "STATS"),
                List.of("FUNCTION", "KILL"),
                List.of("FUNCTION", "FLUSH", "BOGUS"),
                List.of("FUNCTION", "FLUSH"),
                List.of("FCALL", "myget", "1", "k"),
                List.of("FUNCTION", "LIST"),
                List.of("FUNCTION", "LOAD", "#!lua name=\"quoted\"\nredis.register_function('Quoted', " +
                    "function() return 'q' end)"),
                List.of("FCALL", "QUOTED", "0"),
                List.of("FCALL", "quoted", "0"),
                List.of("FUNCTION", "LOAD", "#!lua name=other\nredis.register_function('QUOTED', function() end)"),
                List.of("FUNCTION", "LOAD", "#!lua name=\"unterminated\nredis.register_function('x', " +
                    "function() end)"),
                List.of("FUNCTION", "RESTORE", "bad_payload"),
                List.of("FUNCTION", "RESTORE", "a", "b", "c"),
                List.of("FUNCTION", "RESTORE", "a", "SOMETIMES"),
                List.of("FUNCTION", "HELP")))
            {
                compare(redis, dkv, command);
            }
        }
    }

    /** A script answers later than the commands around it run: the replies of a pipeline keep their order. */
    @Test
    void pipelinedScriptsAnswerInTheirPlace() throws Exception
    {
        try (RawResp redis = open(SERVERS.redis().port(), 2);
            RawResp dkv = open(SERVERS.store().port(), 2))
        {
            for (final RawResp server : List.of(redis, dkv))
            {
                server.send("SET", "piped", "0");
                server.send("EVAL", "return redis.call('incr', KEYS[1])", "1", "piped");
                server.send("GET", "piped");
                server.send("EVAL", "return redis.call('incr', KEYS[1]) * 10", "1", "piped");
                server.send("GET", "piped");
                server.send("PING");
            }
            for (int i = 0; i < 6; i++)
            {
                assertEquals(redis.read(), dkv.read(), "reply " + i);
            }
            for (final RawResp server : List.of(redis, dkv))
            {
                server.send("CLIENT", "REPLY", "OFF");
                server.send("EVAL", "return 'unheard'", "0");
                server.send("CLIENT", "REPLY", "ON");
            }
            assertEquals(redis.read(), dkv.read(), "a script's reply is dropped under CLIENT REPLY OFF");
        }
    }

    @Test
    void scriptsAndFunctionsOutliveFlushAll() throws Exception
    {
        try (RawResp redis = open(SERVERS.redis().port(), 2);
            RawResp dkv = open(SERVERS.store().port(), 2))
        {
            both(redis, dkv, "FUNCTION", "FLUSH");
            for (final List<String> command : List.of(
                List.of("SCRIPT", "LOAD", "return 'kept'"),
                List.of("FUNCTION", "LOAD", LIBRARY),
                List.of("SET", "k", "v"),
                List.of("FLUSHALL"),
                List.of("DBSIZE"),
                List.of("KEYS", "*"),
                List.of("SCAN", "0"),
                List.of("RANDOMKEY"),
                List.of("EVALSHA", KEPT_SHA, "0"),
                List.of("FCALL", "myget", "1", "k")))
            {
                compare(redis, dkv, command);
            }
        }
    }

    @Test
    void infoCountsTheScriptsKept() throws Exception
    {
        try (RawResp redis = open(SERVERS.redis().port(), 2);
            RawResp dkv = open(SERVERS.store().port(), 2))
        {
            both(redis, dkv, "SCRIPT", "FLUSH");
            assertEquals(cachedScripts(redis), cachedScripts(dkv));
            for (int i = 0; i < 5; i++)
            {
                both(redis, dkv, "SCRIPT", "LOAD", "return " + i);
            }
            // loaded again, and run by EVAL: kept once
            both(redis, dkv, "SCRIPT", "LOAD", "return 0");
            both(redis, dkv, "EVAL", "return 4", "0");
            both(redis, dkv, "EVAL", "return 'new'", "0");
            assertEquals("6", cachedScripts(dkv));
            assertEquals(cachedScripts(redis), cachedScripts(dkv));
            both(redis, dkv, "SCRIPT", "FLUSH", "ASYNC");
            assertEquals("0", cachedScripts(dkv));
            assertEquals(cachedScripts(redis), cachedScripts(dkv));
        }
    }

    private static String cachedScripts(final RawResp client) throws IOException
    {
        final String info = client.call("INFO", "memory");
        final int at = info.indexOf("number_of_cached_scripts:");
        return at < 0 ? info : info.substring(at + "number_of_cached_scripts:".length(), info.indexOf('\r', at));
    }

    private static RawResp open(final int port, final int protocol) throws IOException
    {
        final RawResp client = new RawResp(port);
        if (protocol == 3)
        {
            client.call("HELLO", "3");
        }
        return client;
    }

    private static void compare(final RawResp redis, final RawResp dkv, final List<String> command)
        throws IOException
    {
        final String[] args = command.toArray(String[]::new);
        assertEquals(redis.call(args), dkv.call(args), String.join(" ", command));
    }

    private static void both(final RawResp redis, final RawResp dkv, final String... command) throws IOException
    {
        assertEquals(redis.call(command), dkv.call(command), String.join(" ", command));
    }
}
