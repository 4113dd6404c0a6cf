/**
 * {@code dkv bench membership}: a memory node joining a loaded cluster and drained from it again while clients run:
 * the time to move the keys and the clients' latency during each change beside before it.
 */
package io.dkv.load.bench.membership;
