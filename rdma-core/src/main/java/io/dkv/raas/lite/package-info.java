/**
 * LITE's remote-memory calls over RaaS: joining a cluster by its MetaServer's address, memset and memcpy on
 * named regions, and RPC by WRITE_WITH_IMM served by one poll thread.
 */
package io.dkv.raas.lite;
