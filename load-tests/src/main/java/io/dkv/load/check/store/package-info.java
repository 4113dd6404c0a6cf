/**
 * The store under test as a workload sees it: a {@code KvClient} through the host's driver, RESP to compute nodes,
 * and deliberately faulty layers over either, which the checkers must catch.
 */
package io.dkv.load.check.store;
