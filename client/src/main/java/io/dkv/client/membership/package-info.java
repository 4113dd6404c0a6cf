/**
 * Which memory nodes hold a key: the memory tier's membership as the client reads it (phases of a change, leases),
 * which nodes could not be read, and rendezvous hashing of keys onto nodes.
 */
package io.dkv.client.membership;
