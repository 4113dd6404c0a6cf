package io.dkv.raas.meta;

import io.dkv.raas.NodeRecord;
import io.dkv.raas.RaasException;
import io.dkv.raas.RemoteRegion;
import io.dkv.verbs.PortAddress;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import static io.dkv.raas.meta.MetaTableDescriptor.*;

/**
 * Field codec of table slots, as {@link MetaTableDescriptor} lays them out: the MetaServer encodes
 * (inside its seqlock write), clients decode what a READ copied once it was judged consistent.
 */
public final class MetaSlots
{
    private MetaSlots()
    {
    }

    /** Write the fields of a node slot (not its version or checksum). */
    public static void encodeNode(final MemorySegment memory, final long base, final int state, final NodeRecord node)
    {
        final byte[] provider = node.address().provider().getBytes(StandardCharsets.US_ASCII);
        final byte[] address = node.address().bytes();
        if (provider.length > NODE_PROVIDER_MAX || address.length > NODE_ADDRESS_MAX)
        {
            throw new IllegalArgumentException("node " + node.id() + " address " + node.address() +
                " does not fit a slot");
        }
        memory.set(INT, base + STATE_OFFSET, state);
        memory.set(INT, base + NODE_ROLE_OFFSET, node.role());
        memory.set(LONG, base + NODE_ID_OFFSET, node.id());
        memory.set(LONG, base + NODE_DC_KEY_OFFSET, node.dcKey());
        memory.set(LONG, base + NODE_EPOCH_OFFSET, node.epoch());
        memory.set(LONG, base + NODE_LEASE_EXPIRY_OFFSET, node.leaseExpiry());
        memory.set(INT, base + NODE_DCT_NUMBER_OFFSET, node.dctNumber());
        memory.set(INT, base + NODE_ADDRESS_LENGTH_OFFSET, address.length);
        memory.asSlice(base + NODE_PROVIDER_OFFSET, NODE_PROVIDER_MAX + NODE_ADDRESS_MAX).fill((byte)0);
        MemorySegment.copy(provider, 0, memory, ValueLayout.JAVA_BYTE, base + NODE_PROVIDER_OFFSET, provider.length);
        MemorySegment.copy(address, 0, memory, ValueLayout.JAVA_BYTE, base + NODE_ADDRESS_OFFSET, address.length);
    }

    /** Only the lease of a live node slot changes (a heartbeat). */
    public static void encodeLease(final MemorySegment memory, final long base, final long leaseExpiry)
    {
        memory.set(LONG, base + NODE_LEASE_EXPIRY_OFFSET, leaseExpiry);
    }

    public static long nodeId(final MemorySegment memory, final long base)
    {
        return memory.get(LONG, base + NODE_ID_OFFSET);
    }

    /**
     * @return the record of a live node slot already judged consistent.
     * @throws RaasException when its address cannot be a port address (the table is not one this layout describes).
     */
    public static NodeRecord decodeNode(final MemorySegment memory, final long base)
    {
        final int addressLength = memory.get(INT, base + NODE_ADDRESS_LENGTH_OFFSET);
        final long nodeId = memory.get(LONG, base + NODE_ID_OFFSET);
        if (addressLength <= 0 || addressLength > NODE_ADDRESS_MAX)
        {
            throw new RaasException("node slot of node " + nodeId + " has address length " + addressLength);
        }
        int providerLength = 0;
        while (providerLength < NODE_PROVIDER_MAX &&
            memory.get(ValueLayout.JAVA_BYTE, base + NODE_PROVIDER_OFFSET + providerLength) != 0)
        {
            providerLength++;
        }
        final byte[] provider = new byte[providerLength];
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, base + NODE_PROVIDER_OFFSET, provider, 0, providerLength);
        final byte[] address = new byte[addressLength];
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, base + NODE_ADDRESS_OFFSET, address, 0, addressLength);
        try
        {
            return new NodeRecord(
                nodeId,
                memory.get(INT, base + NODE_ROLE_OFFSET),
                PortAddress.of(new String(provider, StandardCharsets.US_ASCII), address),
                memory.get(INT, base + NODE_DCT_NUMBER_OFFSET),
                memory.get(LONG, base + NODE_DC_KEY_OFFSET),
                memory.get(LONG, base + NODE_EPOCH_OFFSET),
                memory.get(LONG, base + NODE_LEASE_EXPIRY_OFFSET));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new RaasException("node slot of node " + nodeId + " does not hold a node record: " + ex.getMessage(),
                ex);
        }
    }

    /** Write the fields of a region slot (not its version or checksum). */
    public static void encodeRegion(final MemorySegment memory, final long base, final int state,
        final RemoteRegion region, final byte[] name)
    {
        if (name.length > REGION_NAME_MAX)
        {
            throw new IllegalArgumentException("region name of " + name.length + " UTF-8 bytes exceeds " +
                REGION_NAME_MAX);
        }
        memory.set(INT, base + STATE_OFFSET, state);
        memory.set(INT, base + REGION_NAME_LENGTH_OFFSET, name.length);
        memory.set(LONG, base + REGION_NODE_ID_OFFSET, region.nodeId());
        memory.set(LONG, base + REGION_NODE_EPOCH_OFFSET, region.nodeEpoch());
        memory.set(LONG, base + REGION_ADDRESS_OFFSET, region.address());
        memory.set(LONG, base + REGION_LENGTH_OFFSET, region.length());
        memory.set(INT, base + REGION_RKEY_OFFSET, region.rkey());
        memory.set(INT, base + REGION_ACCESS_OFFSET, region.access());
        memory.set(INT, base + REGION_LAYOUT_VERSION_OFFSET, region.layoutVersion());
        memory.set(INT, base + REGION_NAME_HASH_OFFSET, nameHash(name));
        memory.asSlice(base + REGION_NAME_OFFSET, REGION_NAME_MAX).fill((byte)0);
        MemorySegment.copy(name, 0, memory, ValueLayout.JAVA_BYTE, base + REGION_NAME_OFFSET, name.length);
    }

    /** @return true when the region slot holds exactly this UTF-8 name. */
    public static boolean hasName(final MemorySegment memory, final long base, final byte[] name, final int hash)
    {
        if (memory.get(INT, base + REGION_NAME_LENGTH_OFFSET) != name.length ||
            memory.get(INT, base + REGION_NAME_HASH_OFFSET) != hash)
        {
            return false;
        }
        for (int i = 0; i < name.length; i++)
        {
            if (memory.get(ValueLayout.JAVA_BYTE, base + REGION_NAME_OFFSET + i) != name[i])
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @return the region of a live region slot already judged consistent.
     * @throws RaasException when the slot cannot hold a region.
     */
    public static RemoteRegion decodeRegion(final MemorySegment memory, final long base)
    {
        final int nameLength = memory.get(INT, base + REGION_NAME_LENGTH_OFFSET);
        if (nameLength < 0 || nameLength > REGION_NAME_MAX)
        {
            throw new RaasException("region slot at " + base + " has name length " + nameLength);
        }
        final byte[] name = new byte[nameLength];
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, base + REGION_NAME_OFFSET, name, 0, nameLength);
        try
        {
            return new RemoteRegion(
                new String(name, StandardCharsets.UTF_8),
                memory.get(LONG, base + REGION_NODE_ID_OFFSET),
                memory.get(LONG, base + REGION_NODE_EPOCH_OFFSET),
                memory.get(LONG, base + REGION_ADDRESS_OFFSET),
                memory.get(INT, base + REGION_RKEY_OFFSET),
                memory.get(LONG, base + REGION_LENGTH_OFFSET),
                memory.get(INT, base + REGION_ACCESS_OFFSET),
                memory.get(INT, base + REGION_LAYOUT_VERSION_OFFSET));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new RaasException("region slot at " + base + " does not hold a region: " + ex.getMessage(), ex);
        }
    }
}
