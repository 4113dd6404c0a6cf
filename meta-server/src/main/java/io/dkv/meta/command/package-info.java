/**
 * {@code dkv meta}: runs a MetaServer from the command line until it is interrupted, with a main of its own; and its
 * operator calls, {@code dkv meta evict} and {@code dkv meta withdraw}.
 */
package io.dkv.meta.command;
