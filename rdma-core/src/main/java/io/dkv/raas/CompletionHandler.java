package io.dkv.raas;

/**
 * Receives the completions of asynchronous one-sided requests. Called by whichever thread polls
 * (an application thread waiting, or the driver's Poller), so it must be quick and must not block.
 */
@FunctionalInterface
public interface CompletionHandler
{
    /**
     * @param token  what the caller passed with the request.
     * @param status {@link RaasStatus#SUCCESS} or the reason it failed.
     * @param value  for CAS and FAA, the word before the operation; else bytes transferred.
     */
    void onCompletion(long token, int status, long value);
}
