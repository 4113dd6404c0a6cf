package io.dkv.raas.driver;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The credits a driver grants its connections never pass its shared receive queue's buffers for long: grants shrink
 * as connections grow, an overdraft (one credit for each connection beyond the capacity) is repaid as messages are
 * consumed, and grants grow back once connections close.
 */
class ReceiveCreditsTest
{
    @Test
    void aReserveOfTheBuffersIsKeptForControlMessages()
    {
        assertEquals(1024 - 128, new ReceiveCredits(1024, 16).capacity());
        assertEquals(64 - 8, new ReceiveCredits(64, 16).capacity());
    }

    @Test
    void grantsShrinkAsConnectionsGrowAndPassTheCapacityByOneAConnectionAtMost()
    {
        final ReceiveCredits credits = new ReceiveCredits(64, 16);
        final List<Integer> grants = new ArrayList<>();
        int overdrawn = 0;
        for (int i = 0; i < 12; i++)
        {
            final int free = credits.capacity() - credits.granted();
            grants.add(credits.open());
            overdrawn += free <= 0 ? 1 : 0;
            assertTrue(credits.granted() <= credits.capacity() + overdrawn,
                credits.granted() + " granted after " + (i + 1) + ", " + overdrawn + " with nothing free");
        }
        // a fixed 16 each would have granted 192 over 56 buffers
        assertEquals(16, grants.get(0));
        assertTrue(grants.get(11) < 16, "the twelfth connection's grant " + grants.get(11));
        assertTrue(grants.stream().allMatch(grant -> grant >= 1), grants.toString());
    }

    @Test
    void connectionsBeyondTheCapacityGetOneCreditAndTheLargerGrantsShrinkUntilItIsRepaid()
    {
        final ReceiveCredits credits = new ReceiveCredits(16, 16);
        final int capacity = credits.capacity();
        final int first = credits.open();
        assertEquals(capacity, first, "one connection alone takes all");
        final int[] later = new int[4];
        for (int i = 0; i < later.length; i++)
        {
            later[i] = credits.open();
            assertEquals(1, later[i], "nothing is free: one credit, so that the connection can move");
        }
        assertEquals(capacity + 4, credits.granted(), "overdrawn by one a connection");
        int held = first;
        int consumed = 0;
        while (credits.granted() > capacity)
        {
            final int back = credits.onConsumed(held);
            assertEquals(0, back, "the largest grant keeps its credits while overdrawn");
            held += back - 1;
            consumed++;
        }
        assertEquals(4, consumed, "repaid after as many messages as the overdraft");
        assertEquals(capacity - 4, held);
        assertEquals(0, credits.onConsumed(held), "none is free: the grant above its share goes on shrinking");
        assertEquals(capacity - 1, credits.granted());
    }

    @Test
    void everyGrantReachesItsFairShareAsMessagesAreConsumed()
    {
        final ReceiveCredits credits = new ReceiveCredits(64, 16);
        final int[] held = new int[12];
        for (int i = 0; i < held.length; i++)
        {
            held[i] = credits.open();
        }
        // a credit freed a message consumed above its share while none is free: slow, but each step is safe
        for (int round = 0; round < 200; round++)
        {
            for (int i = 0; i < held.length; i++)
            {
                held[i] += credits.onConsumed(held[i]) - 1;
            }
        }
        final int share = credits.fairShare();
        for (int i = 0; i < held.length; i++)
        {
            // a grant above its share keeps it while credits are free: nobody wants them
            assertTrue(held[i] >= share, "connection " + i + " holds " + held[i] + ", share " + share);
        }
        assertTrue(credits.granted() <= credits.capacity(), credits.granted() + " granted");
    }

    @Test
    void grantsGrowBackOneMessageAtATimeOnceOthersClosed()
    {
        final ReceiveCredits credits = new ReceiveCredits(64, 16);
        final int[] grants = new int[8];
        for (int i = 0; i < grants.length; i++)
        {
            grants[i] = credits.open();
        }
        final int last = grants[grants.length - 1];
        for (int i = 0; i < grants.length - 1; i++)
        {
            credits.close(grants[i]);
        }
        assertEquals(last, credits.granted());
        int held = last;
        while (held < 16)
        {
            assertEquals(2, credits.onConsumed(held), "one more with each message consumed, at " + held);
            held++;
        }
        assertEquals(1, credits.onConsumed(held), "no more than the configured credits");
        assertEquals(16, credits.granted());
    }
}
