package io.dkv.verbs;

/**
 * Device limits, as {@code struct ibv_device_attr} plus the port's MTU.
 *
 * @param maxQp          queue pairs and DC targets.
 * @param maxQpWr        outstanding requests per queue.
 * @param maxSge         scatter/gather entries per request.
 * @param maxCqe         entries per completion queue.
 * @param maxMr          registered regions.
 * @param maxInlineData  bytes a request may carry inline.
 * @param mtu            largest UD message.
 * @param maxSendSize    largest SEND on a reliable QP.
 * @param maxMessageSize largest RDMA READ or WRITE.
 */
public record DeviceAttributes(
    int maxQp,
    int maxQpWr,
    int maxSge,
    int maxCqe,
    int maxMr,
    int maxInlineData,
    int mtu,
    int maxSendSize,
    long maxMessageSize)
{
}
