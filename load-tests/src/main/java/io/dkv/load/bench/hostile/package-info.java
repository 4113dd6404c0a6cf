/**
 * {@code dkv bench hostile}: a cluster on the tcp provider attacked as a peer on the network would
 * attack it, while legitimate clients run and check every value; what the attack left behind.
 */
package io.dkv.load.bench.hostile;
