package io.dkv.client.txn;

import io.dkv.client.KvClient;

import java.util.concurrent.Executor;

/**
 * What a client lends its transactions: its operations, the intent rules, its threads and its settings. One per
 * client, shared by every transaction it begins.
 *
 * @param client        the client's single-key operations, synchronous and asynchronous.
 * @param keys          its raw operations, intents as they are.
 * @param resolver      the intent rules over {@code keys}.
 * @param maxResolves   intents a read meets and resolves in a row before it gives up.
 * @param executor      the client's own threads: a commit that completions cannot carry alone runs there.
 * @param resolutions   where a parallel commit's decision and resolutions run after the answer.
 * @param stageInFlight whether a parallel commit's intents go all at once, carried by completions.
 */
public record TxnServices(KvClient client, CommitKeys keys, IntentResolver resolver, int maxResolves,
    Executor executor, Resolutions resolutions, boolean stageInFlight)
{
}
