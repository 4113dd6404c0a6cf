package io.dkv.load.bench.hostile;

import io.dkv.verbs.PortAddress;

/**
 * A NIC engine under attack and what an attacker knows of it: where it listens, its DC target
 * (number and key, public in the MetaServer's node table) and one region (address, rkey, length).
 *
 * @param name      for the report.
 * @param engine    where the engine listens.
 * @param dctNumber the node's DC target.
 * @param dcKey     its key.
 * @param address   first byte of the region.
 * @param rkey      the region's rkey.
 * @param length    the region's bytes.
 */
record Target(String name, PortAddress engine, int dctNumber, long dcKey, long address, int rkey, long length)
{
}
