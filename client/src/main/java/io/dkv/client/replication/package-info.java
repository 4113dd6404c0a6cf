/**
 * A key kept on several memory nodes: the chain of CAS from tail to head, the reads of every replica in one round,
 * refilling a joining node, and the messages that put replicated writes on the nodes' disks.
 */
package io.dkv.client.replication;
