package io.dkv.load.check.harness;

import io.dkv.checker.history.History;
import io.dkv.checker.history.Op;
import io.dkv.checker.history.Operation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Judges a run's recovery from its history alone: once every fault was healed and every role was back, did every
 * client read every key? A client that could not (its reads failed until its deadline, or it never read: it did not
 * come back, or did not answer the signal in time) makes the run {@link Verdict#UNRECOVERED}, whatever the checker
 * says of the operations.
 */
final class FinalReadsCheck
{
    private FinalReadsCheck()
    {
    }

    /**
     * @param clients            client processes of the run, numbered from 0.
     * @param processesPerClient how history processes map to clients: process / processesPerClient is the client.
     * @param keys               every key the workload uses, each of which every client must read.
     * @param phases             when the heal began, the reads began and the phase ended, in the history's time.
     */
    static Recovery judge(
        final History history, final int clients, final int processesPerClient, final List<String> keys,
        final Phases phases)
    {
        final Map<String, Long> firstOk = new HashMap<>();
        final Map<String, String> lastError = new HashMap<>();
        int failedTries = 0;
        for (final Operation operation : history.operations())
        {
            if (operation.invokeTime() < phases.readsFrom() || !isRead(operation))
            {
                continue;
            }
            final String pair = operation.process() / processesPerClient + " " + keyOf(operation);
            if (operation.isOk())
            {
                firstOk.merge(pair, operation.completeTime(), Math::min);
            }
            else
            {
                failedTries++;
                lastError.put(pair, operation.completion() == null ? "no answer" : operation.completion().error());
            }
        }
        final List<String> unread = new ArrayList<>();
        long lastRead = phases.readsFrom();
        for (int client = 0; client < clients; client++)
        {
            for (final String key : keys)
            {
                final String pair = client + " " + key;
                final Long read = firstOk.get(pair);
                if (read == null)
                {
                    final String error = lastError.get(pair);
                    unread.add("client " + client + " " + key + (error == null ? " (never read)" : " (" + error + ")"));
                }
                else
                {
                    lastRead = Math.max(lastRead, read);
                }
            }
        }
        final String text;
        if (unread.isEmpty())
        {
            text = String.format(Locale.ROOT, "recovered: every role back %.3f s after the heal began, then %d " +
                "clients read all %d keys within %.3f s (%d tries failed and were tried again)",
                (phases.readsFrom() - phases.healFrom()) / 1e9, clients, keys.size(),
                (lastRead - phases.readsFrom()) / 1e9, failedTries);
        }
        else
        {
            text = String.format(Locale.ROOT, "NOT recovered: %d of %d final reads found no value by the deadline " +
                "(%d tries failed): %s", unread.size(), clients * keys.size(), failedTries,
                String.join("; ", unread.subList(0, Math.min(unread.size(), 12))) +
                (unread.size() > 12 ? "; ..." : ""));
        }
        return new Recovery(unread.isEmpty(), text, phases);
    }

    /** @return the key an operation of either workload is on: a register's key, or the one a transaction reads. */
    static String keyOf(final Operation operation)
    {
        if (operation.key() != null)
        {
            return operation.key();
        }
        return operation.value() instanceof final List<?> microOps && microOps.size() == 1 &&
            microOps.getFirst() instanceof final List<?> microOp && microOp.size() == 3 ?
            String.valueOf(microOp.get(1)) : "?";
    }

    private static boolean isRead(final Operation operation)
    {
        if (Op.READ.equals(operation.f()))
        {
            return true;
        }
        return Op.TXN.equals(operation.f()) && operation.value() instanceof final List<?> microOps &&
            microOps.size() == 1 && microOps.getFirst() instanceof final List<?> microOp &&
            Op.READ_LIST.equals(microOp.getFirst());
    }

    /**
     * When the recovery phase's parts began and ended, in the history's time (nanoseconds since it began).
     *
     * @param healFrom  the nemesis stopped and began to heal every fault.
     * @param readsFrom every role was back (or the wait for them gave up) and the clients were told to read.
     * @param end       every client reported, or the wait for them gave up.
     */
    record Phases(long healFrom, long readsFrom, long end)
    {
    }

    /**
     * A run's recovery.
     *
     * @param recovered true when every client read every key.
     * @param text      one line saying so, or which reads found nothing.
     */
    record Recovery(boolean recovered, String text, Phases phases)
    {
    }
}
