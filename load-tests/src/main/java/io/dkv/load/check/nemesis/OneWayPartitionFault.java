package io.dkv.load.check.nemesis;

/**
 * A partition one way: one random group of test hosts cannot send to the other, which still reaches it, for the
 * hold. A blackhole route on the first side only drops its packets before they leave; this kernel has neither the
 * netfilter nor the tc classifiers that would drop them on the way.
 */
final class OneWayPartitionFault extends PartitionFault
{
    static final String NAME = "one-way-partition";

    OneWayPartitionFault()
    {
        super(NAME);
    }

    boolean oneWay()
    {
        return true;
    }
}
