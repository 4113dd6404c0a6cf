package io.dkv.raas.lite;

import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasPair;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An RPC's timeout runs on the clock of the handle its client was made with, never on the system's alone: a call
 * whose reply does not come fails once that clock passes its deadline, half an hour of it in no time at all.
 */
class RpcClientClockTest
{
    private static final int SERVICE = 32;
    private static final long HOUR_NANOS = 3_600_000_000_000L;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception
    {
        for (int i = open.size() - 1; i >= 0; i--)
        {
            open.get(i).close();
        }
    }

    // on the system's clock this waits half an hour in a loop no interrupt ends: fail on a thread of its own instead
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCallsTimeoutRunsOnItsHandlesClock()
    {
        final StaticDirectory directory = new StaticDirectory();
        final Raas a = RaasDriver.start(RaasPair.context("shm", 1), directory);
        open.add(a);
        final Raas b = RaasDriver.start(RaasPair.context("shm", 2), directory);
        open.add(b);
        // B takes the connection but serves nothing on it: no reply ever comes
        open.add(b.listen(SERVICE));
        final AtomicLong now = new AtomicLong();
        final NanoClock hourPerReading = () -> now.addAndGet(HOUR_NANOS);
        final MemorySegment request = MemorySegment.ofArray(new byte[8]);
        final MemorySegment reply = MemorySegment.ofArray(new byte[8]);

        try (RpcClient client = RpcClient.connect(withClock(a, hourPerReading), b.self().id(), SERVICE, 1024))
        {
            // half an hour to wait on the system's clock; the handle's is past the deadline at its next reading
            final RaasException late = assertThrows(RaasException.class,
                () -> client.call(request, 0, 8, reply, 0, 8, Duration.ofMinutes(30)));
            assertTrue(late.getMessage().contains("call 1 to node 2"), late.getMessage());
        }
    }

    /** @return the driver as a caller sees it, but for its clock, which is {@code clock}. */
    private static Raas withClock(final Raas raas, final NanoClock clock)
    {
        return (Raas)Proxy.newProxyInstance(Raas.class.getClassLoader(), new Class<?>[] {Raas.class},
            (proxy, method, args) ->
            {
                if ("nanoClock".equals(method.getName()))
                {
                    return clock;
                }
                try
                {
                    return method.invoke(raas, args);
                }
                catch (final InvocationTargetException ex)
                {
                    throw ex.getCause();
                }
            });
    }
}
