/**
 * {@code dkv memory-node}: a memory node as its own process, joined to a MetaServer until it is interrupted, with a
 * main of its own.
 */
package io.dkv.memory.command;
