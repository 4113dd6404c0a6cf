package io.dkv.checker.elle;

import io.dkv.checker.history.History;
import io.dkv.checker.history.Op;
import io.dkv.checker.history.Operation;
import org.agrona.collections.Object2IntHashMap;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The list-append transactions of a history, their micro-operations flattened into arrays: transaction t owns
 * micro-operations {@code first(t)} to {@code end(t) - 1}, keys are numbered densely.
 *
 * <p>Operations other than {@code txn} are left out. A read's list is known only when its transaction is ok;
 * an absent key reads as the empty list.
 */
final class Transactions
{
    private static final byte APPEND = 1;
    private static final byte READ = 2;

    private final List<Operation> operations = new ArrayList<>();
    private final Object2IntHashMap<String> keyIds = new Object2IntHashMap<>(-1);
    private final List<String> keys = new ArrayList<>();
    private int[] firstMicroOp = new int[1024];
    private byte[] kinds = new byte[4096];
    private int[] keyOf = new int[4096];
    private long[] appended = new long[4096];
    private List<?>[] readLists = new List<?>[4096];
    private int[] transactionOf = new int[4096];
    private int[] previousOnKey = new int[4096];
    private int[] lastMicroOpOfKey = new int[64];
    private int[] lastTransactionOfKey = new int[64];
    private int microOpCount;

    private Transactions()
    {
    }

    /**
     * @throws IllegalArgumentException naming the transaction when a micro-operation is malformed.
     */
    static Transactions of(final History history)
    {
        final Transactions transactions = new Transactions();
        for (final Operation operation : history.operations())
        {
            if (Op.TXN.equals(operation.f()))
            {
                transactions.add(operation);
            }
        }
        transactions.firstMicroOp[transactions.operations.size()] = transactions.microOpCount;
        return transactions;
    }

    private void add(final Operation operation)
    {
        final int transaction = operations.size();
        operations.add(operation);
        firstMicroOp = ensure(firstMicroOp, transaction + 2);
        firstMicroOp[transaction] = microOpCount;
        if (!(operation.value() instanceof List<?> microOps))
        {
            throw new IllegalArgumentException("a txn's value must be a list of micro-operations: " + operation);
        }
        final boolean readsKnown = operation.isOk();
        for (final Object microOp : microOps)
        {
            if (!(microOp instanceof List<?> parts) || parts.size() != 3 || !(parts.get(1) instanceof String key))
            {
                throw new IllegalArgumentException("a micro-operation must be [f, key, value]: " + microOp + " in " +
                    operation);
            }
            grow();
            final int index = microOpCount++;
            final int keyId = keyId(key);
            keyOf[index] = keyId;
            transactionOf[index] = transaction;
            previousOnKey[index] = lastTransactionOfKey[keyId] == transaction ? lastMicroOpOfKey[keyId] : -1;
            lastTransactionOfKey[keyId] = transaction;
            lastMicroOpOfKey[keyId] = index;
            final Object f = parts.get(0);
            if (Op.APPEND.equals(f))
            {
                if (!(parts.get(2) instanceof Number element))
                {
                    throw new IllegalArgumentException("an append needs an integer element: " + microOp + " in " +
                        operation);
                }
                kinds[index] = APPEND;
                appended[index] = element.longValue();
                readLists[index] = null;
            }
            else if (Op.READ_LIST.equals(f))
            {
                kinds[index] = READ;
                readLists[index] = readsKnown ? readList(parts.get(2), microOp, operation) : null;
            }
            else
            {
                throw new IllegalArgumentException("unknown micro-operation '" + f + "', expected append or r: " +
                    microOp +
                    " in " + operation);
            }
        }
    }

    private static List<?> readList(final Object value, final Object microOp, final Operation operation)
    {
        if (value == null)
        {
            return List.of();
        }
        if (!(value instanceof List<?> list))
        {
            throw new IllegalArgumentException("a read must see a list or null: " + microOp + " in " + operation);
        }
        return list;
    }

    private int keyId(final String key)
    {
        int id = keyIds.getValue(key);
        if (id < 0)
        {
            id = keys.size();
            keyIds.put(key, id);
            keys.add(key);
            lastMicroOpOfKey = ensure(lastMicroOpOfKey, id + 1);
            lastTransactionOfKey = ensure(lastTransactionOfKey, id + 1);
            lastTransactionOfKey[id] = -1;
        }
        return id;
    }

    private void grow()
    {
        if (microOpCount == kinds.length)
        {
            final int capacity = kinds.length * 2;
            kinds = Arrays.copyOf(kinds, capacity);
            keyOf = Arrays.copyOf(keyOf, capacity);
            appended = Arrays.copyOf(appended, capacity);
            readLists = Arrays.copyOf(readLists, capacity);
            transactionOf = Arrays.copyOf(transactionOf, capacity);
            previousOnKey = Arrays.copyOf(previousOnKey, capacity);
        }
    }

    private static int[] ensure(final int[] array, final int length)
    {
        return array.length >= length ? array : Arrays.copyOf(array, Math.max(length, array.length * 2));
    }

    int count()
    {
        return operations.size();
    }

    Operation operation(final int transaction)
    {
        return operations.get(transaction);
    }

    boolean isOk(final int transaction)
    {
        return operations.get(transaction).isOk();
    }

    boolean isFailed(final int transaction)
    {
        return operations.get(transaction).isFail();
    }

    int first(final int transaction)
    {
        return firstMicroOp[transaction];
    }

    int end(final int transaction)
    {
        return firstMicroOp[transaction + 1];
    }

    int microOpCount()
    {
        return microOpCount;
    }

    int transactionOf(final int microOp)
    {
        return transactionOf[microOp];
    }

    boolean isAppend(final int microOp)
    {
        return kinds[microOp] == APPEND;
    }

    boolean isRead(final int microOp)
    {
        return kinds[microOp] == READ;
    }

    int key(final int microOp)
    {
        return keyOf[microOp];
    }

    long element(final int microOp)
    {
        return appended[microOp];
    }

    /** @return true when the micro-operation is a read whose list is known (its transaction is ok). */
    boolean isKnownRead(final int microOp)
    {
        return readLists[microOp] != null;
    }

    /** @return the list a known read saw. */
    List<?> readList(final int microOp)
    {
        return readLists[microOp];
    }

    int readLength(final int microOp)
    {
        return readLists[microOp].size();
    }

    /** @throws IllegalArgumentException when the list holds something other than an integer. */
    long readElement(final int microOp, final int position)
    {
        if (!(readLists[microOp].get(position) instanceof Number element))
        {
            throw new IllegalArgumentException("a read list must hold integers: " + readLists[microOp] + " in " +
                operations.get(transactionOf[microOp]));
        }
        return element.longValue();
    }

    /** @return the transaction's micro-operation on the same key just before this one, or -1 when this is the first. */
    int previousOnKey(final int microOp)
    {
        return previousOnKey[microOp];
    }

    /**
     * @return true when this is the transaction's first micro-operation on its key: a read then sees the state
     * other transactions left, not the transaction's own appends.
     */
    boolean isFirstOnKey(final int microOp)
    {
        return previousOnKey[microOp] < 0;
    }

    int keyCount()
    {
        return keys.size();
    }

    String keyName(final int key)
    {
        return keys.get(key);
    }
}
