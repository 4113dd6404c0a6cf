/**
 * The verbs model: devices, protection domains, memory regions, completion queues, queue pairs
 * (RC, UD, DC initiator), DC targets and shared receive queues, rendered after ibverbs.
 * Providers ({@code shm}, {@code tcp}) implement it; {@link io.dkv.verbs.Verbs} opens one by name.
 */
package io.dkv.verbs;
