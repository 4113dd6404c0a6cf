/**
 * The index protocol's decisions as pure functions over the slot words a read brought: which slots may be the key's,
 * which is its committed one, where an insert goes, whether it commits, and when a miss is confirmed.
 */
package io.dkv.client.index;
