package io.dkv.checker.linear;

import io.dkv.checker.history.Op;
import io.dkv.checker.history.Operation;

/**
 * Register operations and values as people read them: {@code read k3 -> 2 (#41)}, {@code write k3 1 (#37)},
 * {@code cas k3 [2 3] (#44)}; {@code nil} is an absent key; the number is the invocation's index in the history.
 */
final class OperationText
{
    private OperationText()
    {
    }

    static String of(final Operation operation)
    {
        final StringBuilder text = new StringBuilder(48);
        text.append(operation.f()).append(' ').append(operation.key()).append(' ');
        switch (operation.f())
        {
            case Op.READ -> text.append("-> ").append(operation.isOk() ? value(RegisterValues.read(operation)) : "?");
            case Op.WRITE -> text.append(value(RegisterValues.written(operation)));
            default -> text.append('[').append(value(RegisterValues.casExpected(operation))).append(' ')
                .append(value(RegisterValues.casNew(operation))).append(']');
        }
        text.append(" (#").append(operation.invoke().index());
        if (!operation.isOk())
        {
            text.append(", ").append(operation.outcome().jsonName());
        }
        return text.append(')').toString();
    }

    static String value(final Long value)
    {
        return value == null ? "nil" : value.toString();
    }
}
