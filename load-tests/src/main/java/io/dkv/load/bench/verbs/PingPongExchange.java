package io.dkv.load.bench.verbs;

/**
 * The message sizes of the tcp floor's ping-pong for one operation: what an RDMA request of that
 * operation sends and what comes back, without the verbs headers. READ sends a 16-byte request
 * (an address and a length) and gets the data back; WRITE and CAS send the operation's size and
 * get as many bytes back, echoed.
 *
 * @param requestLength bytes the client sends per operation.
 * @param replyLength   bytes the server answers with.
 */
record PingPongExchange(int requestLength, int replyLength)
{
    static final int READ_REQUEST_LENGTH = 16;

    static PingPongExchange of(final Operation operation, final int size)
    {
        return switch (operation)
        {
            case READ -> new PingPongExchange(READ_REQUEST_LENGTH, size);
            case WRITE, CAS -> new PingPongExchange(size, size);
        };
    }

    String describe()
    {
        return "ping-pong " + requestLength + "->" + replyLength + " B";
    }
}
