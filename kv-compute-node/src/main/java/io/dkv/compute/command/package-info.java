/**
 * The Redis commands a compute node serves, one class per family, looked up by a command table that checks arity and
 * AUTH in redis-server's order and gives its error texts.
 */
package io.dkv.compute.command;
