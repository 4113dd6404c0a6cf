package io.dkv.raas.driver;

import io.dkv.raas.NodeRecord;

import java.lang.foreign.MemorySegment;

import static io.dkv.raas.ControlHeader.*;
import static io.dkv.raas.driver.ControlMessages.INT;
import static io.dkv.raas.driver.ControlMessages.LONG;

/**
 * What a hostile driver can send: CONNECTs claiming node ids that are not its own, each a message
 * of its own that asks nothing back (no advert, no connection waiting for the ACCEPT), so one
 * sender makes thousands in a moment. The claimed address is the sender's own, so answers come
 * back to it and are dropped (they name no connection of its).
 */
final class ForgedConnects
{
    /** A vQPN the sender never hands out: answers to it find no connection. */
    private static final int NO_CONNECTION = ConnectionTable.MAX_CONNECTIONS - 1;

    private ForgedConnects()
    {
    }

    /**
     * Send {@code count} CONNECTs to a service of the target node, claiming node ids
     * {@code firstNodeId}, {@code firstNodeId + 1}, ...
     */
    static void send(final RaasDriver from, final long target, final int service, final long firstNodeId,
        final int count)
    {
        final NodeRoute route = from.routes().route(target);
        final ControlMessages control = from.controlMessages();
        final NodeRecord self = from.self();
        final byte[] address = self.address().bytes();
        for (int i = 0; i < count; i++)
        {
            RequestSlot slot;
            while ((slot = control.controlSlot(route, 0, TYPE_CONNECT, NO_CONNECTION, 16, CONNECT_LENGTH)) == null)
            {
                from.poll();
                Thread.onSpinWait();
            }
            final MemorySegment staging = slot.staging;
            staging.set(INT, CONNECT_SERVICE_OFFSET, service);
            staging.set(INT, CONNECT_ROLE_OFFSET, self.role());
            staging.set(LONG, CONNECT_NODE_ID_OFFSET, firstNodeId + i);
            staging.set(LONG, CONNECT_DC_KEY_OFFSET, self.dcKey());
            staging.set(LONG, CONNECT_EPOCH_OFFSET, self.epoch());
            staging.set(INT, CONNECT_DCT_OFFSET, self.dctNumber());
            staging.set(INT, CONNECT_ADDRESS_LENGTH_OFFSET, address.length);
            MemorySegment.copy(MemorySegment.ofArray(address), 0, staging, CONNECT_ADDRESS_OFFSET, address.length);
            staging.set(LONG, CONNECT_ADVERT_ADDRESS_OFFSET, 0);
            staging.set(INT, CONNECT_ADVERT_RKEY_OFFSET, 0);
            staging.set(INT, CONNECT_ADVERT_BYTES_OFFSET, 4096);
            staging.set(INT, CONNECT_QPN_OFFSET, from.udQpn());
            control.post(slot, CONNECT_LENGTH);
        }
    }

    /** Wait until every CONNECT sent has completed at the sender (delivered, or failed). */
    static void awaitSent(final RaasDriver from)
    {
        while (!from.pipeline().isIdle())
        {
            from.poll();
            Thread.onSpinWait();
        }
    }
}
