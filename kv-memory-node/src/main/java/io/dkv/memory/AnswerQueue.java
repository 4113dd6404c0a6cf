package io.dkv.memory;

import io.dkv.raas.Connection;

import java.lang.foreign.MemorySegment;

/**
 * The answers of one client that could not be sent when they were made: the client held no message credit (it has
 * not consumed earlier answers), or no request slot was free. They go out in order, before any newer answer, on the
 * request server's next turns ({@link #flush}); so answering never waits for one client, whose slowness or death
 * would stop the answers to every other.
 *
 * <pre>
 *   memory: [answer 0: ANSWER_BYTES][answer 1] ... [answer capacity-1]   a ring: head .. head+size (mod capacity)
 * </pre>
 * Starts with room for {@link #INITIAL_ANSWERS} and doubles when full; the server stops reading a client's requests
 * once it holds {@link RequestServer#MAX_QUEUED_ANSWERS}, so it stays bounded. One writer: the request server.
 */
final class AnswerQueue
{
    static final int INITIAL_ANSWERS = 16;

    private final Connection client;
    private final int answerBytes;
    private MemorySegment memory;
    private int capacity;
    private int head;
    private int size;

    AnswerQueue(final Connection client, final int answerBytes)
    {
        this.client = client;
        this.answerBytes = answerBytes;
        this.capacity = INITIAL_ANSWERS;
        this.memory = MemorySegment.ofArray(new byte[capacity * answerBytes]);
    }

    /** @return the answers waiting. */
    int size()
    {
        return size;
    }

    boolean isEmpty()
    {
        return size == 0;
    }

    /** Keep a copy of an answer to send after those already waiting. */
    void add(final MemorySegment answer)
    {
        if (size == capacity)
        {
            grow();
        }
        MemorySegment.copy(answer, 0, memory, (long)((head + size) % capacity) * answerBytes, answerBytes);
        size++;
    }

    /**
     * Offer the waiting answers in order until the client takes no more now.
     *
     * @return answers sent.
     * @throws io.dkv.raas.RaasException when the connection is no longer open.
     */
    int flush()
    {
        int sent = 0;
        while (size > 0 && client.offer(memory, (long)head * answerBytes, answerBytes))
        {
            head = (head + 1) % capacity;
            size--;
            sent++;
        }
        return sent;
    }

    /** Drop the answers waiting: their client is gone. */
    void clear()
    {
        head = 0;
        size = 0;
    }

    private void grow()
    {
        final MemorySegment larger = MemorySegment.ofArray(new byte[capacity * 2 * answerBytes]);
        for (int i = 0; i < size; i++)
        {
            MemorySegment.copy(memory, (long)((head + i) % capacity) * answerBytes, larger, (long)i * answerBytes,
                answerBytes);
        }
        memory = larger;
        capacity *= 2;
        head = 0;
    }
}
