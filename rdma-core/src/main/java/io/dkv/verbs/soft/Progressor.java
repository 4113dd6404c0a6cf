package io.dkv.verbs.soft;

/**
 * Work done on behalf of a completion queue's poller: the shm provider has no engine thread, so
 * queue pairs advance (deliver receives, collect acknowledgements) when their CQ is polled.
 */
@FunctionalInterface
public interface Progressor
{
    void progress();
}
