/**
 * How compute nodes meet each other: calls over RaaS between the live compute nodes the MetaServer lists, for what
 * one node alone cannot serve (pub/sub across the pool).
 */
package io.dkv.compute.mesh;
