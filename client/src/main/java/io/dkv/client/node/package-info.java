/**
 * One thread's links to the memory nodes: their views, connections and rounds of requests, requests to their CPUs,
 * and the heap chunks the thread writes its blocks into.
 */
package io.dkv.client.node;
