/**
 * The client side of the MetaServer: a {@link io.dkv.raas.Directory} that reads node and region
 * records from the MetaServer's registered tables with one-sided READs, caches them until the table
 * epoch moves, and writes through RPCs. The table layout and wire format live here too.
 */
package io.dkv.raas.meta;
