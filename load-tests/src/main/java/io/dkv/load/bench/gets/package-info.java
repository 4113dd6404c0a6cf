/**
 * {@code dkv bench gets}: GETs per second of one client thread with several in flight, carried by
 * their completions, beside the same thread's synchronous GETs in the same run.
 */
package io.dkv.load.bench.gets;
