/**
 * A minimal blocking RESP client for dkv's own tools: waiting for a compute node to answer, timing a
 * first request, and the harness's clients talking to compute nodes.
 */
package io.dkv.load.resp;
