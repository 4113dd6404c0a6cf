/**
 * {@code dkv driver}: the standalone RaaS driver of a host, which applications attach to.
 */
package io.dkv.load.driver;
