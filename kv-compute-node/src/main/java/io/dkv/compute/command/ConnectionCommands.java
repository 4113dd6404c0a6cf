package io.dkv.compute.command;

import io.dkv.compute.resp.RespNumbers;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.netty.buffer.ByteBuf;

import java.util.List;
import java.util.Map;

import static io.dkv.compute.command.CommandTable.is;
import static io.dkv.compute.command.CommandTable.spec;

/**
 * The connection's own commands: PING, ECHO, SELECT, QUIT, AUTH, HELLO and CLIENT SETNAME/GETNAME/ID.
 */
final class ConnectionCommands
{
    /** The redis version a compute node answers as: clients choose features by it, and its replies are redis 7's. */
    static final String REDIS_VERSION = "7.0.15";

    private static final byte[] DEFAULT_USER = "default".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final CommandEnvironment environment;
    private final KeyStore store;
    private final StoreThreads storeThreads;

    /**
     * @param store        the store outside transactions: where CLIENT UNBLOCK may be a step (Session.mayAwait).
     * @param storeThreads where a CLIENT UNBLOCK that asks peers runs, so that the loop waits on no peer's answer.
     */
    ConnectionCommands(final CommandEnvironment environment, final KeyStore store, final StoreThreads storeThreads)
    {
        this.environment = environment;
        this.store = store;
        this.storeThreads = storeThreads;
    }

    List<CommandSpec> commands()
    {
        return List.of(
            spec("ping", -1, this::ping),
            spec("echo", 2, (session, args, out) -> RespReplies.bulk(out, args[1])),
            spec("select", 2, this::select),
            new CommandSpec("quit", -1, true, this::quit, null),
            new CommandSpec("auth", -2, true, this::auth, null),
            new CommandSpec("hello", -1, true, this::hello, null),
            new CommandSpec("client", -2, false, null, Map.of(
                "setname", spec("client|setname", 3, this::clientSetName),
                "getname", spec("client|getname", 2,
                    (session, args, out) -> RespReplies.bulkOrNull(out, session.name(), session.protocol())),
                "id", spec("client|id", 2, (session, args, out) -> RespReplies.integer(out, session.id())),
                "unblock", spec("client|unblock", -3, this::clientUnblock),
                "reply", spec("client|reply", 3, this::clientReply))));
    }

    private void ping(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (args.length > 2)
        {
            RespReplies.error(out, Errors.arity("ping"));
        }
        else if (session.protocol() == 2 && session.subscriber() != null && session.subscriber().subscribed())
        {
            // redis's answer in subscribed mode, where a RESP2 client reads every reply as a message
            RespReplies.arrayHeader(out, 2);
            RespReplies.bulk(out, "pong");
            RespReplies.bulk(out, args.length == 2 ? args[1] : new byte[0]);
        }
        else if (args.length == 2)
        {
            RespReplies.bulk(out, args[1]);
        }
        else
        {
            RespReplies.simple(out, "PONG");
        }
    }

    /** CLIENT REPLY ON|OFF|SKIP: OFF and SKIP are not answered, ON is; pub/sub's pushes go out whatever the mode. */
    private void clientReply(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (CommandTable.is(args[2], "on"))
        {
            session.replies(Session.REPLIES_ON);
            RespReplies.ok(out);
        }
        else if (CommandTable.is(args[2], "off"))
        {
            session.replies(Session.REPLIES_OFF);
        }
        else if (CommandTable.is(args[2], "skip"))
        {
            if (session.replies() == Session.REPLIES_ON)
            {
                session.replies(Session.REPLIES_SKIP_NEXT);
            }
        }
        else
        {
            RespReplies.error(out, Errors.SYNTAX);
        }
    }

    /**
     * CLIENT UNBLOCK id [TIMEOUT|ERROR]: a connection of this node blocked on keys answers as if it timed out, or
     * with redis's UNBLOCKED error, whichever node of the pool it is blocked on (connection ids are the pool's).
     */
    private void clientUnblock(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (args.length > 4)
        {
            RespReplies.error(out, "ERR unknown subcommand or wrong number of arguments for '" +
                Errors.text128(args[1]) + "'. Try CLIENT HELP.");
            return;
        }
        boolean error = false;
        if (args.length == 4)
        {
            error = CommandTable.is(args[3], "error");
            if (!error && !CommandTable.is(args[3], "timeout"))
            {
                RespReplies.error(out, "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
                return;
            }
        }
        if (!RespNumbers.isLong(args[2]))
        {
            RespReplies.error(out, Errors.NOT_INTEGER);
            return;
        }
        final long id = RespNumbers.parseLong(args[2]);
        final boolean withError = error;
        if (session.mayAwait(store) && environment.waiters().unblockAsksPeers(id))
        {
            // blocked on no connection here: each peer is asked in turn, on a store thread, a step
            storeThreads.offload(session, null, reply ->
                RespReplies.integer(reply, environment.waiters().unblock(id, withError) ? 1 : 0));
            return;
        }
        RespReplies.integer(out, environment.waiters().unblock(id, error) ? 1 : 0);
    }

    /** dkv has one keyspace: as redis configured with {@code databases 1}, any index but 0 is out of range. */
    private void select(final Session session, final byte[][] args, final ByteBuf out)
    {
        final byte[] index = args[1];
        if (!RespNumbers.isLong(index))
        {
            RespReplies.error(out, Errors.NOT_INTEGER);
        }
        else if (RespNumbers.parseLong(index) != (int)RespNumbers.parseLong(index))
        {
            RespReplies.error(out, "ERR value is out of range, value must between -2147483648 and 2147483647");
        }
        else if (RespNumbers.parseLong(index) != 0)
        {
            RespReplies.error(out, Errors.DB_OUT_OF_RANGE);
        }
        else
        {
            RespReplies.ok(out);
        }
    }

    private void quit(final Session session, final byte[][] args, final ByteBuf out)
    {
        RespReplies.ok(out);
        session.closeAfterReply(true);
    }

    private void auth(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (args.length > 3)
        {
            RespReplies.error(out, Errors.SYNTAX);
            return;
        }
        if (args.length == 2 && environment.requirePass() == null)
        {
            RespReplies.error(out, "ERR AUTH <password> called without any password configured for the default user. " +
                "Are you sure your configuration is correct?");
            return;
        }
        final String error = authenticate(session, args.length == 3 ? args[1] : null, args[args.length - 1]);
        if (error == null)
        {
            RespReplies.ok(out);
        }
        else
        {
            RespReplies.error(out, error);
        }
    }

    /**
     * The default user is the only one: without a password configured it takes any password, as redis's nopass
     * default user does.
     *
     * @return null when authenticated, else the error.
     */
    private String authenticate(final Session session, final byte[] user, final byte[] password)
    {
        final boolean userOk = user == null || java.util.Arrays.equals(user, DEFAULT_USER);
        if (userOk && (environment.requirePass() == null || environment.passwordMatches(password)))
        {
            session.authenticate();
            return null;
        }
        if (environment.requirePass() != null)
        {
            // throttled only where a password guards the node: without one every client is the default user already,
            // and an unknown user's AUTH is answered at once, as redis-server does
            environment.auth().failed(session, environment.stats());
        }
        return Errors.WRONGPASS;
    }

    private void hello(final Session session, final byte[][] args, final ByteBuf out)
    {
        int next = 1;
        long version = 0;
        if (args.length >= 2)
        {
            final byte[] given = args[next++];
            if (!RespNumbers.isLong(given))
            {
                RespReplies.error(out, "ERR Protocol version is not an integer or out of range");
                return;
            }
            version = RespNumbers.isLong(given) ? RespNumbers.parseLong(given) : 0;
            if (version < 2 || version > 3)
            {
                RespReplies.error(out, "NOPROTO unsupported protocol version");
                return;
            }
        }
        byte[] user = null;
        byte[] password = null;
        byte[] name = null;
        for (int j = next; j < args.length; j++)
        {
            final int more = args.length - 1 - j;
            if (is(args[j], "auth") && more >= 2)
            {
                user = args[j + 1];
                password = args[j + 2];
                j += 2;
            }
            else if (is(args[j], "setname") && more >= 1)
            {
                name = args[j + 1];
                j++;
            }
            else
            {
                RespReplies.error(out, "ERR Syntax error in HELLO option '" + Errors.text(args[j]) + "'");
                return;
            }
        }
        if (user != null)
        {
            final String error = authenticate(session, user, password);
            if (error != null)
            {
                RespReplies.error(out, error);
                return;
            }
        }
        if (!session.authenticated())
        {
            RespReplies.error(out, "NOAUTH HELLO must be called with the client already authenticated, otherwise the " +
                "HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP " +
                "protocol version at the same time");
            return;
        }
        if (name != null && !setName(session, name, out))
        {
            return;
        }
        if (version != 0)
        {
            session.protocol((int)version);
        }
        final int protocol = session.protocol();
        RespReplies.mapHeader(out, 7, protocol);
        RespReplies.bulk(out, "server");
        RespReplies.bulk(out, "redis");
        RespReplies.bulk(out, "version");
        RespReplies.bulk(out, REDIS_VERSION);
        RespReplies.bulk(out, "proto");
        RespReplies.integer(out, protocol);
        RespReplies.bulk(out, "id");
        RespReplies.integer(out, session.id());
        RespReplies.bulk(out, "mode");
        RespReplies.bulk(out, "cluster");
        RespReplies.bulk(out, "role");
        RespReplies.bulk(out, "master");
        RespReplies.bulk(out, "modules");
        RespReplies.arrayHeader(out, 0);
    }

    private void clientSetName(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (setName(session, args[2], out))
        {
            RespReplies.ok(out);
        }
    }

    /** @return false when the name was refused (the error was written). */
    private static boolean setName(final Session session, final byte[] name, final ByteBuf out)
    {
        for (final byte b : name)
        {
            if (b < '!' || b > '~')
            {
                RespReplies.error(out, "ERR Client names cannot contain spaces, newlines or special characters.");
                return false;
            }
        }
        session.name(name);
        return true;
    }
}
