package io.dkv.verbs;

/**
 * DC target: the responder side of dynamically connected transport. Any DC initiator that knows
 * the target's port address, DCT number and DC key reaches it without a handshake.
 */
public interface DcTarget extends AutoCloseable
{
    int dctNumber();

    long dcKey();

    void close();
}
