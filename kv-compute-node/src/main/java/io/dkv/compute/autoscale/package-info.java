/**
 * The autoscaler of compute nodes on one host: reads each node's load from its metrics endpoint and starts or drains
 * compute-node processes between a minimum and a maximum, by Kubernetes HPA's rule; {@code ./dkv autoscale} runs it.
 */
package io.dkv.compute.autoscale;
