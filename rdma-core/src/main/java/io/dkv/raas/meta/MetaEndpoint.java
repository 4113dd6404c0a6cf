package io.dkv.raas.meta;

import io.dkv.raas.NodeRecord;
import io.dkv.verbs.PortAddress;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * What a node needs to reach a MetaServer with no other directory: its node id and the reach-data
 * of its driver's DC target. Written as
 *
 * <pre>
 *   meta:&lt;nodeId&gt;@&lt;port address&gt;#&lt;DCT number, 8 hex digits&gt;:&lt;DC key, 16 hex digits&gt;
 *   e.g. meta:1@tcp:10.0.0.2:7000#00000001:5be0cd19137e2179
 * </pre>
 *
 * The port address is {@link PortAddress}'s text form, which holds neither '@' nor '#'. A
 * MetaServer keeps its node id, device address and DC key across restarts, so its endpoint stays
 * the same.
 *
 * @param nodeId    the MetaServer's node id.
 * @param address   where its device listens.
 * @param dctNumber its driver's DC target.
 * @param dcKey     that target's DC key.
 */
public record MetaEndpoint(long nodeId, PortAddress address, int dctNumber, long dcKey)
{
    public static final String PREFIX = "meta:";

    public MetaEndpoint
    {
        if (nodeId == 0)
        {
            throw new IllegalArgumentException("MetaServer node id 0 is reserved");
        }
        if (address == null)
        {
            throw new IllegalArgumentException("MetaServer " + nodeId + " has no address");
        }
    }

    public static MetaEndpoint of(final NodeRecord node)
    {
        return new MetaEndpoint(node.id(), node.address(), node.dctNumber(), node.dcKey());
    }

    /**
     * @param text the form {@link #toString()} writes.
     * @return the endpoint.
     * @throws IllegalArgumentException naming the text and what is wrong with it.
     */
    public static MetaEndpoint parse(final String text)
    {
        final String trimmed = text.trim();
        final int at = trimmed.indexOf('@');
        final int hash = trimmed.lastIndexOf('#');
        if (!trimmed.startsWith(PREFIX) || at < 0 || hash < at)
        {
            throw new IllegalArgumentException("MetaServer endpoint '" + text +
                "' is not meta:<nodeId>@<address>#<dct>:<dcKey>");
        }
        final String reach = trimmed.substring(hash + 1);
        final int colon = reach.indexOf(':');
        if (colon < 0)
        {
            throw new IllegalArgumentException("MetaServer endpoint '" + text +
                "' lacks ':' between DCT number and DC key");
        }
        try
        {
            return new MetaEndpoint(
                Long.parseLong(trimmed.substring(PREFIX.length(), at)),
                PortAddress.parse(trimmed.substring(at + 1, hash)),
                (int)HexFormat.fromHexDigitsToLong(reach.substring(0, colon)),
                HexFormat.fromHexDigitsToLong(reach.substring(colon + 1)));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("MetaServer endpoint '" + text + "' is malformed: " + ex.getMessage(),
                ex);
        }
    }

    /**
     * @param text endpoints separated by commas (or whitespace).
     * @return them in order.
     */
    public static List<MetaEndpoint> parseList(final String text)
    {
        final List<MetaEndpoint> endpoints = new ArrayList<>();
        for (final String part : text.split("[,\\s]+"))
        {
            if (!part.isEmpty())
            {
                endpoints.add(parse(part));
            }
        }
        return endpoints;
    }

    /** @return the record a driver routes to this MetaServer by (its incarnation is not part of the endpoint). */
    public NodeRecord toNodeRecord()
    {
        return new NodeRecord(nodeId, NodeRecord.ROLE_META, address, dctNumber, dcKey, 0, Long.MAX_VALUE);
    }

    public String toString()
    {
        return PREFIX + nodeId + '@' + address + '#' + HexFormat.of().toHexDigits(dctNumber) + ':' +
            HexFormat.of().toHexDigits(dcKey);
    }
}
