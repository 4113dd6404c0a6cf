package io.dkv.agent;

import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An agent's errors are counted and kept once each, with how often and when they were seen, and read back as text
 * from the buffer alone, as another process reads a driver's.
 */
class ErrorLogTest
{
    private final CachedEpochClock clock = new CachedEpochClock();

    private static IllegalStateException failure(final String message)
    {
        return new IllegalStateException(message);
    }

    @Test
    void theSameErrorIsKeptOnceAndCountedEachTime()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(ErrorLog.IN_MEMORY_BYTES));
        final ErrorLog log = new ErrorLog(buffer, clock);
        final IllegalStateException error = failure("queue pair 0x2002 refused the batch");
        clock.update(1_000);
        log.onError(error);
        clock.update(2_000);
        log.onError(error);
        log.onError(failure("another"));

        assertEquals(3, log.errors());
        final String text = ErrorLog.read(buffer, 0);
        assertTrue(text.contains("2 observations, first 1970-01-01T00:00:01Z, last 1970-01-01T00:00:02Z:\n"), text);
        assertTrue(text.contains("queue pair 0x2002 refused the batch"), text);
        assertTrue(text.contains("1 observation, "), text);
        assertEquals(text, log.describe(), "the log's own view and another reader's agree");
    }

    @Test
    void errorsBeyondItsRoomAreStillCounted()
    {
        final ErrorLog log = new ErrorLog(new UnsafeBuffer(ByteBuffer.allocateDirect(1024)), clock);
        for (int i = 0; i < 50; i++)
        {
            log.onError(failure("distinct error " + i));
        }
        assertEquals(50, log.errors());
        assertTrue(log.notKept() > 0, "a 1 KiB log holds few stack traces");
        assertTrue(log.describe().endsWith(log.notKept() + " more error(s) not kept: the log was full\n"),
            log.describe());
    }

    @Test
    void anEmptyLogReadsAsNothing()
    {
        assertEquals("", ErrorLog.inMemory(clock).describe());
    }
}
