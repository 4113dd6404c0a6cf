/**
 * YCSB bindings: a YCSB record as one dkv value ({@link io.dkv.load.ycsb.DkvYcsbClient}) and as one
 * Redis hash ({@link io.dkv.load.ycsb.RedisYcsbClient}), so that the same workload runs on both.
 */
package io.dkv.load.ycsb;
