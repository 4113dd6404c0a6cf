package io.dkv.raas.cnc;

import io.dkv.raas.Connection;
import io.dkv.raas.Listener;
import org.agrona.MutableDirectBuffer;

import java.time.Duration;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * A listener a standalone driver holds for this client.
 */
final class AttachedListener implements Listener
{
    private final AttachedRaas raas;
    private final int service;
    private boolean closed;

    AttachedListener(final AttachedRaas raas, final int service)
    {
        this.raas = raas;
        this.service = service;
    }

    public int service()
    {
        return service;
    }

    public Connection accept(final Duration timeout)
    {
        final ClientSlot slot = raas.acquire();
        final int index = raas.claim(ACCEPT, ACCEPT_LENGTH, slot);
        final MutableDirectBuffer buffer = raas.commandBuffer();
        buffer.putInt(index + ACCEPT_LISTENER_OFFSET, service);
        buffer.putInt(index + ACCEPT_TIMEOUT_OFFSET, (int)Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        raas.commit(index);
        raas.awaitUntil(slot, "accept on service " + service, System.nanoTime() + timeout.toNanos() + 1_000_000_000L);
        final int vqpn = (int)slot.value;
        final long nodeId = slot.value2;
        raas.release(slot);
        return new AttachedConnection(raas, vqpn, nodeId, true, null);
    }

    public Connection poll()
    {
        final ClientSlot slot = raas.acquire();
        final int index = raas.claim(POLL_ACCEPT, CLOSE_LENGTH, slot);
        raas.commandBuffer().putInt(index + CLOSE_ID_OFFSET, service);
        raas.commit(index);
        raas.await(slot, "poll of the listener on service " + service);
        final int vqpn = (int)slot.value;
        final long nodeId = slot.value2;
        raas.release(slot);
        return vqpn == 0 ? null : new AttachedConnection(raas, vqpn, nodeId, true, null);
    }

    public void close()
    {
        if (!closed)
        {
            closed = true;
            raas.closeListener(service);
        }
    }
}
