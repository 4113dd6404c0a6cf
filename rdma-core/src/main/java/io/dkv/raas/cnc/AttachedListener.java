package io.dkv.raas.cnc;

import io.dkv.raas.Connection;
import io.dkv.raas.Listener;

import java.time.Duration;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * A listener a standalone driver holds for this client.
 */
final class AttachedListener implements Listener
{
    private final AttachedRaas raas;
    private final Attachment attachment;
    private final ClientConductor conductor;
    private final int service;
    private boolean closed;

    AttachedListener(final AttachedRaas raas, final Attachment attachment, final int service)
    {
        this.raas = raas;
        this.attachment = attachment;
        this.conductor = attachment.conductor();
        this.service = service;
    }

    public int service()
    {
        return service;
    }

    public Connection accept(final Duration timeout)
    {
        final ClientSlot slot = conductor.acquire();
        final AcceptFlyweight command = conductor.claim(ACCEPT, ACCEPT_LENGTH, slot, new AcceptFlyweight());
        conductor.commit(command.listenerId(service).timeoutMs((int)Math.min(Integer.MAX_VALUE, timeout.toMillis())));
        conductor.awaitUntil(slot, "accept on service " + service, conductor.deadlineAfter(timeout));
        final int vqpn = (int)slot.value;
        final long nodeId = slot.value2;
        conductor.release(slot);
        return raas.connection(attachment, vqpn, nodeId, true, null);
    }

    public Connection poll()
    {
        final ClientSlot slot = conductor.acquire();
        conductor.commit(conductor.claim(POLL_ACCEPT, TARGET_LENGTH, slot, new TargetFlyweight()).targetId(service));
        conductor.await(slot, "poll of the listener on service " + service);
        final int vqpn = (int)slot.value;
        final long nodeId = slot.value2;
        conductor.release(slot);
        return vqpn == 0 ? null : raas.connection(attachment, vqpn, nodeId, true, null);
    }

    public void close()
    {
        if (!closed)
        {
            closed = true;
            attachment.closeListener(service);
        }
    }
}
