/**
 * The memory node: the hash index and the KV heap in registered memory, published as named
 * regions and used by clients with one-sided requests; its CPU hands out heap chunks.
 */
package io.dkv.memory;
