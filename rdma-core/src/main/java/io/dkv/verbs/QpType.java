package io.dkv.verbs;

/**
 * Queue pair transport types.
 */
public enum QpType
{
    /** Reliable connected: one remote QP, ordered, acknowledged, all opcodes. */
    RC,
    /** Unreliable datagram: SEND only, at most one MTU, any remote UD QP per request. */
    UD,
    /** Dynamically connected initiator: reliable like RC, any DC target per request. */
    DCI
}
