/**
 * {@code dkv meta}: runs a MetaServer from the command line until it is interrupted.
 */
package io.dkv.load.meta;
