/**
 * The bytes clients and memory nodes agree on: the hash index (directory, subtables of bucket
 * groups, 8-byte slots), the KV blocks of the heap, and the chunk RPC.
 */
package io.dkv.format;
