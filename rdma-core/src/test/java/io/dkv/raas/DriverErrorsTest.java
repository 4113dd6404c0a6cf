package io.dkv.raas;

import io.dkv.raas.cnc.CncDescriptor;
import io.dkv.raas.cnc.DriverErrors;
import io.dkv.raas.driver.StandaloneDriver;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A standalone driver keeps its errors in its cnc file, counted and once each, where another process reads them
 * ({@code ./dkv driver --errors}) while it runs and after it stopped; a driver that recorded none leaves nothing.
 */
class DriverErrorsTest
{
    private static RaasContext context(final String name)
    {
        return RaasPair.context("shm", 1).driverName(name).errorLogBytes(64 * 1024);
    }

    private static Path directoryOf(final RaasContext context)
    {
        return CncDescriptor.driverDirectory(context.cncDirectory(), context.driverName());
    }

    @Test
    void aDriversErrorsAreReadFromItsCncFileWhileItRunsAndAfterItStops()
    {
        final RaasContext context = context("errors-" + UUID.randomUUID().toString().substring(0, 8));
        final Path directory = directoryOf(context);
        try (StandaloneDriver driver = StandaloneDriver.launch(context, new StaticDirectory()))
        {
            assertTrue(DriverErrors.report(directory).endsWith("running): no errors recorded\n"),
                DriverErrors.report(directory));
            final IllegalStateException error = new IllegalStateException("a client's command failed");
            driver.errorLog().onError(error);
            driver.errorLog().onError(error);

            final String running = DriverErrors.report(directory);
            assertTrue(running.contains("running):\n2 observations, first "), running);
            assertTrue(running.contains("java.lang.IllegalStateException: a client's command failed"), running);
            assertEquals(2, driver.errorLog().errors());
        }
        final String stopped = DriverErrors.report(directory);
        assertTrue(stopped.contains("stopped):\n2 observations"), stopped);

        // the next driver of that name takes the place of the one that stopped
        try (StandaloneDriver next = StandaloneDriver.launch(context("x").driverName(context.driverName()),
            new StaticDirectory()))
        {
            assertTrue(DriverErrors.report(directory).endsWith("running): no errors recorded\n"));
        }
        assertFalse(Files.exists(directory), "a driver that recorded no error leaves no file");
        final RaasException none = assertThrows(RaasException.class, () -> DriverErrors.report(directory));
        assertTrue(none.getMessage().startsWith("no driver named '" + context.driverName() + "'"), none.getMessage());
    }
}
