/**
 * LITE's remote-memory calls over RaaS: joining a cluster by its MetaServer's address, memset and memcpy on
 * named regions, and RPC over messages (WRITE_WITH_IMM where the driver chooses it) served by one poll thread.
 */
package io.dkv.raas.lite;
