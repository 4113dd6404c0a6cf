/**
 * The RaaS driver: {@link io.dkv.raas.driver.RaasDriver} (the API and the wiring), the request
 * pipeline (request slots whose wr_id carries the vQPN, one entry for a request, doorbell batches,
 * combining submission and polling), the QP pool (shared DC initiators, RC queue pairs to hot
 * peers), the virtual QP checks, messaging over the shared receive queue, and the standalone
 * driver that serves the processes of a host through its command-and-control file.
 */
package io.dkv.raas.driver;
