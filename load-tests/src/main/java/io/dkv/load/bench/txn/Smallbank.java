package io.dkv.load.bench.txn;

import io.dkv.client.KvClient;
import io.dkv.client.txn.Transaction;
import io.dkv.client.txn.TransactionConflictException;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * SmallBank (Alomari et al., ICDE'08; the OLTP benchmark FORD and Motor report), through {@link KvClient#begin}: each
 * customer a checking and a savings account, six transactions in H-Store's mix (Amalgamate, Balance, DepositChecking,
 * SendPayment, TransactSavings, WriteCheck: 15/15/15/25/15/15 %), 90% of them on the 4% hot customers. One object per
 * thread.
 */
final class Smallbank
{
    static final long OPENING = 10_000;
    private static final double HOT_SHARE = 0.9;
    private static final double HOT_CUSTOMERS = 0.04;

    private final KvClient client;
    private final int customers;
    private final SplittableRandom random;
    private long conflicts;

    Smallbank(final KvClient client, final int customers, final long seed)
    {
        this.client = client;
        this.customers = customers;
        this.random = new SplittableRandom(seed);
    }

    /** Open every customer's two accounts. */
    static void load(final KvClient client, final int customers)
    {
        for (int c = 0; c < customers; c++)
        {
            client.put(checking(c), encode(OPENING));
            client.put(savings(c), encode(OPENING));
        }
    }

    /** @return conflicts met so far: runs of a transaction that did not commit. */
    long conflicts()
    {
        return conflicts;
    }

    /** Run one transaction of the mix until it commits. */
    void next()
    {
        final int kind = random.nextInt(100);
        final int first = customer();
        int second = customer();
        while (second == first)
        {
            second = customer();
        }
        final long amount = 1 + random.nextInt(100);
        final int other = second;
        while (true)
        {
            final Transaction tx = client.begin();
            if (kind < 15)
            {
                // Amalgamate: everything the first has moves to the second's checking
                final long saved = balance(tx.get(savings(first)));
                final long checked = balance(tx.get(checking(first)));
                final long target = balance(tx.get(checking(other)));
                tx.put(savings(first), encode(0));
                tx.put(checking(first), encode(0));
                tx.put(checking(other), encode(target + saved + checked));
            }
            else if (kind < 30)
            {
                // Balance: read-only
                balance(tx.get(savings(first)));
                balance(tx.get(checking(first)));
            }
            else if (kind < 45)
            {
                tx.put(checking(first), encode(balance(tx.get(checking(first))) + amount));
            }
            else if (kind < 70)
            {
                // SendPayment
                tx.put(checking(first), encode(balance(tx.get(checking(first))) - amount));
                tx.put(checking(other), encode(balance(tx.get(checking(other))) + amount));
            }
            else if (kind < 85)
            {
                tx.put(savings(first), encode(balance(tx.get(savings(first))) + amount));
            }
            else
            {
                // WriteCheck: an overdraft costs one more
                final long total = balance(tx.get(savings(first))) + balance(tx.get(checking(first)));
                final long checked = balance(tx.get(checking(first)));
                tx.put(checking(first), encode(checked - amount - (total < amount ? 1 : 0)));
            }
            try
            {
                tx.commit();
                return;
            }
            catch (final TransactionConflictException ex)
            {
                conflicts++;
            }
        }
    }

    private int customer()
    {
        final int hot = Math.max(1, (int)(customers * HOT_CUSTOMERS));
        return random.nextDouble() < HOT_SHARE ? random.nextInt(hot) : hot + random.nextInt(customers - hot);
    }

    static byte[] checking(final int customer)
    {
        return ("checking:" + customer).getBytes(StandardCharsets.UTF_8);
    }

    static byte[] savings(final int customer)
    {
        return ("savings:" + customer).getBytes(StandardCharsets.UTF_8);
    }

    static long balance(final byte[] value)
    {
        return value == null ? 0 : ByteBuffer.wrap(value).getLong();
    }

    static byte[] encode(final long balance)
    {
        return ByteBuffer.allocate(Long.BYTES).putLong(balance).array();
    }
}
