package io.dkv.compute.command;

import io.netty.buffer.ByteBuf;

import java.util.concurrent.CompletableFuture;

/**
 * A request whose store operation went out through the client's asynchronous form ({@link Session#await}): the event
 * loop that ran it goes on with other work, and once the operation completes the same loop writes the reply
 * ({@link CommandTable#finish}), where the request's reply goes among its connection's replies. What the table does
 * after a command (keyspace events, waking blocked clients, counting the call) waits for the reply too.
 *
 * <p>Made and finished on the connection's event loop; only {@link #operation()} completes on another thread.
 */
public final class AsyncStep
{
    /** Makes the request's reply from what the operation gave, on the connection's event loop. */
    @FunctionalInterface
    public interface Finisher<T>
    {
        /**
         * @param result  what the operation completed with; null when it failed.
         * @param failure why it failed (unwrapped from a CompletionException); null when not.
         * @param out     where the reply goes.
         * @throws RuntimeException as a command does: the table answers it as it answers a command's.
         */
        void finish(T result, Throwable failure, ByteBuf out);
    }

    private final CompletableFuture<?> operation;
    private final Finisher<Object> finisher;
    private final byte[] key;
    private CommandSpec spec;
    private byte[][] args;
    private long began;

    @SuppressWarnings("unchecked")
    <T> AsyncStep(final CompletableFuture<T> operation, final Finisher<? super T> finisher, final byte[] key)
    {
        this.operation = operation;
        this.finisher = (Finisher<Object>)finisher;
        this.key = key;
    }

    /** @return the store operation: the connection finishes the step once it completes. */
    public CompletableFuture<?> operation()
    {
        return operation;
    }

    /**
     * @return the one key the step reads or writes: a later request of the connection on it waits for the step; null
     * for a step of several keys, which every later request waits for.
     */
    public byte[] key()
    {
        return key;
    }

    /** The table notes what it ran, for its work after the reply. */
    void ran(final CommandSpec spec, final byte[][] args, final long began)
    {
        this.spec = spec;
        this.args = args;
        this.began = began;
    }

    CommandSpec spec()
    {
        return spec;
    }

    byte[][] args()
    {
        return args;
    }

    long began()
    {
        return began;
    }

    /**
     * @return true for the requests that may go out as steps, by their shape (each command still decides): GET key,
     * SET key value (no option), INCR key, DECR key, INCRBY key n, DECRBY key n; their key is the second argument.
     */
    public static boolean shaped(final byte[][] args)
    {
        if (args.length == 2)
        {
            return CommandTable.is(args[0], "get") || CommandTable.is(args[0], "incr") ||
                CommandTable.is(args[0], "decr");
        }
        return args.length == 3 && (CommandTable.is(args[0], "set") || CommandTable.is(args[0], "incrby") ||
            CommandTable.is(args[0], "decrby"));
    }

    /** @return {@code failure} to throw from a {@link Finisher}: as it is where unchecked, else wrapped. */
    public static RuntimeException unchecked(final Throwable failure)
    {
        return failure instanceof RuntimeException unchecked ? unchecked :
            new IllegalStateException(String.valueOf(failure.getMessage()), failure);
    }

    /** @return what failed: the cause a {@code CompletionException} wraps, else {@code failure} itself. */
    static Throwable cause(final Throwable failure)
    {
        return failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null ?
            failure.getCause() : failure;
    }

    /** Make the reply; the operation has completed. */
    void finish(final ByteBuf out)
    {
        Object result = null;
        Throwable failure = null;
        try
        {
            result = operation.join();
        }
        catch (final RuntimeException ex)
        {
            failure = cause(ex);
        }
        finisher.finish(result, failure, out);
    }
}
