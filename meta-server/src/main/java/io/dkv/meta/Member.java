package io.dkv.meta;

import io.dkv.raas.NodeRecord;

/**
 * A node record with the token that proves changes to it come from its node. The token stays on the
 * MetaServers (their store, their replication): the tables nodes read hold the record only.
 *
 * @param node  the record.
 * @param token the node's token, or null for none (a MetaServer's own record).
 */
record Member(NodeRecord node, byte[] token)
{
}
