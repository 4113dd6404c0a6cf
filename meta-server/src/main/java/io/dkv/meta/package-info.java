/**
 * The MetaServer: node records and region descriptors in registered memory that nodes read with
 * one-sided READs, written through RPCs, durable in RocksDB and replicated to a second MetaServer.
 */
package io.dkv.meta;
