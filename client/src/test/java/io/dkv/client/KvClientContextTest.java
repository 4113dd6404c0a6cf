package io.dkv.client;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The client's settings from system properties: a parallel commit's stage in flight is auto unless a property says
 * true or false (any case), and any other word is refused with the word named.
 */
class KvClientContextTest
{
    @AfterEach
    void clearProperty()
    {
        System.clearProperty(KvClientConfiguration.TXN_STAGE_IN_FLIGHT_PROP_NAME);
    }

    @Test
    void stageInFlightIsAutoUnlessAPropertySaysTrueOrFalse()
    {
        assertNull(new KvClientContext().txnStageInFlight(), "auto: the client decides by its provider");
        System.setProperty(KvClientConfiguration.TXN_STAGE_IN_FLIGHT_PROP_NAME, "TRUE");
        assertEquals(Boolean.TRUE, new KvClientContext().txnStageInFlight());
        System.setProperty(KvClientConfiguration.TXN_STAGE_IN_FLIGHT_PROP_NAME, "false");
        assertEquals(Boolean.FALSE, new KvClientContext().txnStageInFlight());
        assertEquals(Boolean.TRUE, new KvClientContext().txnStageInFlight(true).txnStageInFlight(), "a setter wins");
        System.setProperty(KvClientConfiguration.TXN_STAGE_IN_FLIGHT_PROP_NAME, "auto");
        assertNull(new KvClientContext().txnStageInFlight());
    }

    @Test
    void anotherWordIsRefusedByName()
    {
        System.setProperty(KvClientConfiguration.TXN_STAGE_IN_FLIGHT_PROP_NAME, "yes");
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, KvClientContext::new);
        assertTrue(refused.getMessage().contains("'yes'") &&
            refused.getMessage().contains(KvClientConfiguration.TXN_STAGE_IN_FLIGHT_PROP_NAME), refused.getMessage());
    }
}
