/**
 * The keyspace as a whole: scans of every memory node's index by cursor, key patterns, and the flush of every key.
 * Read with one-sided READs only; a flush deletes through the single-key path.
 */
package io.dkv.client.keyspace;
