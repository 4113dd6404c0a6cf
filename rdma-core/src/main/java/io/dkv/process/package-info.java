/**
 * dkv roles (driver, MetaServer, memory node, compute node, autoscaler, the harness's clients) started as child
 * processes of this JVM, each by its own main, with their output in log files: for ./dkv up, the autoscaler, the
 * harness and the benchmarks alike.
 */
package io.dkv.process;
