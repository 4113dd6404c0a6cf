/**
 * RESP on the wire: a bounded request decoder with redis-server's protocol errors, and the reply writer (RESP2 and
 * RESP3).
 */
package io.dkv.compute.resp;
