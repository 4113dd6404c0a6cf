/**
 * Operations carried by their requests' completions, not by a waiting thread: GETs and writes as state machines, the
 * pools that keep them, and the agent that polls an attached driver for them.
 */
package io.dkv.client.async;
