/**
 * What one client may hold of a compute node: the bounds of its requests and its pending replies, as redis's
 * proto-max-bulk-len, client-query-buffer-limit, client-output-buffer-limit and maxmemory-clients (CONFIG SET).
 */
package io.dkv.compute.limits;
