/**
 * What dkv's Agrona agents (drivers' workers and pollers, the standalone driver's conductor, a memory node's
 * request server, the MetaServer) share: their idle strategies, named in configuration rather than in code, and
 * where they keep what other processes read while they run: their errors and their counters.
 */
package io.dkv.agent;
