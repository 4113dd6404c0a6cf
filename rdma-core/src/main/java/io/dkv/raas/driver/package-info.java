/**
 * The RaaS driver: the QP pool (shared DC initiators, RC queue pairs to hot peers), request slots
 * whose wr_id carries the vQPN, combining submission and polling, the virtual QP checks, and
 * messaging over the shared receive queue.
 */
package io.dkv.raas.driver;
