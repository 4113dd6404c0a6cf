package io.dkv.compute.autoscale;

/**
 * A compute node the autoscaler started: a process of this host, or (in tests) a node in this JVM. Every method is
 * quick: the autoscaler's duty cycle polls them and never waits on one node.
 */
public interface ManagedNode
{
    /** Where a node is in its life. */
    enum State
    {
        /** Started, not yet serving. */
        STARTING,
        /** Serving RESP and its metrics endpoint. */
        SERVING,
        /** Asked to drain: it stops accepting, answers what it read, closes its connections and deregisters. */
        DRAINING,
        /** Gone, whether it drained or died. */
        EXITED
    }

    /** @return where it is now (reading its output or process state; never blocks). */
    State poll();

    /** @return its node id in the cluster, known once it serves (0 before). */
    long nodeId();

    /** @return the port of its metrics endpoint, known once it serves (-1 before). */
    int metricsPort();

    /** @return a name for messages, e.g. "compute node 7 (pid 4242)". */
    String describe();

    /** Begin its drain (SIGTERM for a process); returns at once. */
    void drain();

    /** End it now, drained or not: for an autoscaler that is itself killed, or a drain that hangs. */
    void kill();

    /** Freeze it (SIGSTOP), as a long pause would: for fault injection. */
    default void pause()
    {
        throw new UnsupportedOperationException(describe() + " cannot be paused");
    }

    /** Let it run again (SIGCONT) after {@link #pause()}. */
    default void resume()
    {
        throw new UnsupportedOperationException(describe() + " cannot be resumed");
    }

    /** @return what its end looked like, e.g. its exit status and the end of its log, once EXITED. */
    String exitReport();
}
