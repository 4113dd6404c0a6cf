/**
 * The KV client library: get, put, delete and compare-and-set on keys spread over memory nodes,
 * done with one-sided READ, WRITE and CAS through RaaS; the memory nodes' CPUs are not involved.
 */
package io.dkv.client;
