/**
 * Ordered data on the store: counted B+trees whose nodes are blocks at reserved keys, and the sorted sets and lists
 * made of them, each change one transaction (client/README.md, "Sorted sets and lists").
 */
package io.dkv.client.ordered;
