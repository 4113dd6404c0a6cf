package io.dkv.memory.command;

import io.dkv.agent.CountersFile;
import io.dkv.memory.MemoryNode;
import io.dkv.raas.Raas;

/**
 * One incarnation of a memory node in its process: its driver's registration, the node, and the counters file they
 * write. A process runs one at a time, and another once a member asks it to restart from its disk
 * (kv-memory-node/README.md, "Every copy of some keys lost while a member serves").
 */
record Incarnation(Raas raas, MemoryNode node, CountersFile countersFile, long registeredIncarnation,
    long registeredAtNanos)
{
    void close()
    {
        node.close();
        raas.close();
        countersFile.close();
    }

    /**
     * Which incarnation runs, so that the process's stop closes it, and a restart's close never races the stop. One
     * lock: a stop waits for a start under way and closes what it started.
     */
    static final class Lifecycle
    {
        private Incarnation current;
        private boolean stopping;

        /** @return false when the process stops meanwhile (the incarnation is then closed here). */
        synchronized boolean serve(final Incarnation incarnation)
        {
            if (stopping)
            {
                incarnation.close();
                return false;
            }
            current = incarnation;
            return true;
        }

        /** @return false when the process stops meanwhile; the incarnation is closed either way. */
        synchronized boolean retire(final Incarnation incarnation)
        {
            if (current == incarnation)
            {
                current = null;
                incarnation.close();
            }
            return !stopping;
        }

        synchronized void stop()
        {
            stopping = true;
            if (current != null)
            {
                current.close();
                current = null;
            }
        }
    }
}
