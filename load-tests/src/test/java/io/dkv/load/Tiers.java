package io.dkv.load;

/**
 * The test tiers, as JUnit 5 tag names. {@code ./dkv test} (and so CI) leaves out {@link #SOAK}; {@code ./dkv test
 * --soak} runs that tier alone and {@code ./dkv test --all} every tier.
 */
public final class Tiers
{
    /**
     * Fault runs of 25 s or more each (of CheckCommandTest's, all but one of each kind of fault: kills and pauses,
     * stepped clocks, partitions, a faulty store caught), {@code dkv up} draining a memory node (drained across
     * processes by default in MembershipChangeProcessTest), and the benches' whole runs (every part of `./dkv bench
     * raas`, the membership bench, the compute bench's throughput, join, scale-out and ordered parts: 30-47 s each, the
     * programs themselves run by `./dkv bench`): what they show holds in every build, but together they would push the
     * suite past the time CI keeps on two cores.
     */
    public static final String SOAK = "soak";

    private Tiers()
    {
    }
}
