/**
 * The software RNIC shared by the {@code shm} and {@code tcp} providers: queues, completion
 * queues, the QP state machine with in-order completion and flushing, and the responder's
 * protection checks. Providers supply only how a request reaches the peer.
 */
package io.dkv.verbs.soft;
