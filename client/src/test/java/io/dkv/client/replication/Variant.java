package io.dkv.client.replication;

/**
 * The replication protocol as designed, and deliberately broken forms of it that the checker must catch.
 */
enum Variant
{
    /** Writes go tail to head along the chain and are acknowledged at the head; reads read the head. */
    CHAIN,

    /** Broken: a writer acknowledges once it wins the tail (one replica), then carries on down the chain. */
    ACK_AT_TAIL,

    /** Broken: reads read the tail, a backup, without looking whether its write has reached the head. */
    READ_TAIL,

    /** Broken: nobody rolls a crashed writer's write forward, so every later writer waits on it for ever. */
    NO_REPAIR
}
