package io.dkv.verbs;

/**
 * Which answers of a tcp NIC engine are lost after their request was executed, for tests of what a requester does
 * when a link is cut between the two (as Aeron's media driver takes a loss generator for its channels). The engine
 * never sends a lost answer, and its requester waits until it gives up; in production none is lost.
 */
@FunctionalInterface
public interface TcpAnswerLoss
{
    /** Loses nothing: the engine's default. */
    TcpAnswerLoss NONE = (requesterQpn, psn) -> false;

    /**
     * @param requesterQpn the queue pair (or DC initiator) that sent the atomic.
     * @param psn          its packet sequence number.
     * @return true to execute the atomic and never answer it.
     */
    boolean loseAtomicAnswer(int requesterQpn, int psn);
}
