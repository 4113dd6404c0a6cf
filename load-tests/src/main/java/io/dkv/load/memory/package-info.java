/**
 * {@code dkv memory-node}: a memory node as its own process.
 */
package io.dkv.load.memory;
