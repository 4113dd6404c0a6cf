/**
 * dkv roles (driver, MetaServer, memory node, compute node, the harness's clients) run as child processes of this JVM,
 * each by its own main, with their output in log files: for local clusters, the harness and benchmarks.
 */
package io.dkv.load.process;
