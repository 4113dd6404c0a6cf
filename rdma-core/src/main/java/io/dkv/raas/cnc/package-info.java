/**
 * Command and control between applications and a standalone RaaS driver: the memory-mapped files
 * they share (rings of commands and responses, heartbeats, each client's data area), the flyweights
 * that encode and decode the commands, responses and headers in them, and the client-side handle
 * that speaks through them.
 */
package io.dkv.raas.cnc;
