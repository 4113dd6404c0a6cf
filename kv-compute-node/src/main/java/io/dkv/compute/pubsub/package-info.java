/**
 * Pub/sub across compute nodes: each node's subscribers, what its peers subscribe to, and the messages and
 * subscription changes carried between nodes over the mesh.
 */
package io.dkv.compute.pubsub;
