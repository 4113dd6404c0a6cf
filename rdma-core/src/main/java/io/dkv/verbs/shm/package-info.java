/**
 * The {@code shm} provider: peers on one host. Regions peers may reach are files on a tmpfs mapped
 * by both sides; one-sided requests are executed by the initiator directly on the mapped target
 * memory (the target's threads do nothing) and two-sided messages travel through shared rings.
 */
package io.dkv.verbs.shm;
