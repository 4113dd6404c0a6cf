/**
 * What the clients of {@code dkv check} do to the store: the register and list-append workloads, and the workers
 * that run one at a rate and record every invocation and completion in a history.
 */
package io.dkv.load.check.workload;
