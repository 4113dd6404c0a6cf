package io.dkv.checker.linear;

import io.dkv.checker.history.HistoryJson;
import io.dkv.checker.history.Op;
import io.dkv.checker.history.Operation;

import java.util.List;

/**
 * Reads the register values out of read, write and cas operations, refusing what a register cannot hold.
 * A register holds an integer or nothing (null: the key is absent).
 */
final class RegisterValues
{
    private RegisterValues()
    {
    }

    /** @return the value an ok read returned. */
    static Long read(final Operation operation)
    {
        return register(operation.value(), operation, "the value read");
    }

    /** @return the value a write writes; null deletes the key. */
    static Long written(final Operation operation)
    {
        return register(operation.value(), operation, "the value written");
    }

    static Long casExpected(final Operation operation)
    {
        return register(casPair(operation).get(0), operation, "the expected value");
    }

    static Long casNew(final Operation operation)
    {
        return register(casPair(operation).get(1), operation, "the new value");
    }

    /** @throws IllegalArgumentException when the operation is not a read, write or cas on a key. */
    static void requireRegisterOperation(final Operation operation)
    {
        final String f = operation.f();
        if (!Op.READ.equals(f) && !Op.WRITE.equals(f) && !Op.CAS.equals(f))
        {
            throw new IllegalArgumentException("the register checker knows read, write and cas, not '" + f + "': " +
                operation);
        }
        if (operation.key() == null)
        {
            throw new IllegalArgumentException("a register operation needs a key: " + operation);
        }
    }

    private static List<?> casPair(final Operation operation)
    {
        if (operation.value() instanceof final List<?> pair && pair.size() == 2)
        {
            return pair;
        }
        throw new IllegalArgumentException("a cas needs the value [expected, new], not " +
            HistoryJson.valueText(operation.value()) + ": " + operation);
    }

    private static Long register(final Object value, final Operation operation, final String what)
    {
        return switch (value)
        {
            case null -> null;
            case final Long number -> number;
            case final Integer number -> number.longValue();
            default -> throw new IllegalArgumentException("a register holds an integer or nothing; " + what + " is " +
                HistoryJson.valueText(value) + " in " + operation);
        };
    }
}
