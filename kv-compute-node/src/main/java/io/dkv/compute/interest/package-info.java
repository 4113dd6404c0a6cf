/**
 * What each compute node of a pool has that its peers must know of (subscribers of a channel, connections blocked on
 * a key), told to every peer with numbered changes and handed over when nodes meet.
 */
package io.dkv.compute.interest;
