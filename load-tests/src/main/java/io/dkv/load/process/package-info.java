/**
 * dkv roles (driver, MetaServer, memory node) run as child processes of this JVM, with their
 * output in log files: for local clusters and for benchmarks that need several processes.
 */
package io.dkv.load.process;
