package io.dkv.raas.cnc;

import io.dkv.raas.NodeRecord;
import io.dkv.verbs.PortAddress;
import org.agrona.MutableDirectBuffer;

import java.nio.charset.StandardCharsets;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * CLIENT_READY: the driver attached the client, and tells it the record of the node it serves (see
 * {@link CommandDescriptor}).
 */
public final class ClientReadyFlyweight extends CorrelatedFlyweight
{
    /** @return bytes of a CLIENT_READY for the node's record. */
    public static int length(final NodeRecord node)
    {
        return READY_ADDRESS_OFFSET + node.address().bytes().length +
            node.address().provider().getBytes(StandardCharsets.UTF_8).length;
    }

    public ClientReadyFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /** Write the node's record: its id, role, DC target and key, epoch, and address with its provider. */
    public ClientReadyFlyweight node(final NodeRecord node)
    {
        final byte[] address = node.address().bytes();
        final byte[] provider = node.address().provider().getBytes(StandardCharsets.UTF_8);
        buffer.putLong(offset + READY_NODE_OFFSET, node.id());
        buffer.putInt(offset + READY_ROLE_OFFSET, node.role());
        buffer.putInt(offset + READY_DCT_OFFSET, node.dctNumber());
        buffer.putLong(offset + READY_DC_KEY_OFFSET, node.dcKey());
        buffer.putLong(offset + READY_EPOCH_OFFSET, node.epoch());
        buffer.putInt(offset + READY_ADDRESS_LENGTH_OFFSET, address.length);
        buffer.putInt(offset + READY_PROVIDER_LENGTH_OFFSET, provider.length);
        buffer.putBytes(offset + READY_ADDRESS_OFFSET, address);
        buffer.putBytes(offset + READY_ADDRESS_OFFSET + address.length, provider);
        return this;
    }

    /** @return the record of the node the driver serves. */
    public NodeRecord node()
    {
        final int addressLength = buffer.getInt(offset + READY_ADDRESS_LENGTH_OFFSET);
        final byte[] address = new byte[addressLength];
        buffer.getBytes(offset + READY_ADDRESS_OFFSET, address);
        final String provider =
            string(READY_ADDRESS_OFFSET + addressLength, buffer.getInt(offset + READY_PROVIDER_LENGTH_OFFSET));
        return new NodeRecord(
            buffer.getLong(offset + READY_NODE_OFFSET),
            buffer.getInt(offset + READY_ROLE_OFFSET),
            PortAddress.of(provider, address),
            buffer.getInt(offset + READY_DCT_OFFSET),
            buffer.getLong(offset + READY_DC_KEY_OFFSET),
            buffer.getLong(offset + READY_EPOCH_OFFSET),
            0);
    }
}
