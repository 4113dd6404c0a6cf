/**
 * What the commands use of the store, behind one narrow interface with two implementations, so that a command's logic
 * is written once and runs either on its own (each call a single-key operation of the embedded client, as outside
 * MULTI) or as part of one client transaction (EXEC, MSET, MSETNX, MGET), where reads are remembered and writes wait
 * for the commit.
 */
package io.dkv.compute.store;
