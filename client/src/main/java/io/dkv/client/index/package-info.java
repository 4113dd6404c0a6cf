/**
 * The RACE index protocol of one node, one-sided: its decisions as pure functions over the slot words read
 * ({@link io.dkv.client.index.IndexDecisions}), the reads ({@link io.dkv.client.index.IndexProbe}) and the CAS writes
 * ({@link io.dkv.client.index.SlotWriter}).
 */
package io.dkv.client.index;
