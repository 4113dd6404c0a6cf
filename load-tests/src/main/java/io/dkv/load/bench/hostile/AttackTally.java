package io.dkv.load.bench.hostile;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What one kind of attack sent and what came back, counted by the threads that send and read.
 */
final class AttackTally
{
    final AttackKind kind;
    final AtomicLong frames = new AtomicLong();
    final AtomicLong connections = new AtomicLong();
    final AtomicLong responses = new AtomicLong();
    final AtomicLong successes = new AtomicLong();
    final AtomicLong cutOff = new AtomicLong();
    final AtomicLong refused = new AtomicLong();

    AttackTally(final AttackKind kind)
    {
        this.kind = kind;
    }

    /** @return SUCCESS answers to frames the peer had no right to send: must be 0. */
    long breaches()
    {
        return kind.unauthorized() ? successes.get() : 0;
    }
}
