package io.dkv.raas;

import java.util.Arrays;
import java.util.List;

/**
 * The memory tier's members as the directory keeps them: which memory nodes hold keys, in which
 * state each is, and on how many of them each key lives. Keys are placed over the members, not
 * over who is up: a member that is down keeps its place, and the copies on the others serve its
 * keys; only a member joining or leaving the list moves keys.
 *
 * @param epoch     bumped by every change of the list, of a member's state or of the replica count.
 * @param replicas  copies of each key the cluster keeps (its replication factor), at least 1; a key
 *                  lives on {@code min(replicas, members)} members.
 * @param memberIds the members, in no particular order.
 * @param states    each member's state, {@link #LIVE}, {@link #JOINING}, {@link #DOWN} or {@link #LEAVING}.
 * @param incarnations each member's incarnation (its node epoch) in that state, or 0 where the directory keeps
 *                  none: a client that meets a member as another incarnation knows its membership is out of date.
 * @param placements each member's placement flags: {@link #PLACED_BEFORE} when keys are placed over it in the
 *                  placement they have now, {@link #PLACED_AFTER} when they will be once the change in progress
 *                  completes; {@link #PLACED} (both) for every member while no change runs.
 * @param phase     the phase of the membership change in progress: {@link #STEADY} (none), {@link #FILL},
 *                  {@link #SWITCH}, {@link #HANDOVER} or {@link #CLEANUP}; client/README.md ("Membership change")
 *                  says what each asks of readers and writers.
 * @param leftLive  for each member, when it last stopped serving: the membership epoch of that change, with
 *                  {@link #MEMORY_LOST} when it came back since as another incarnation (its memory then is not what
 *                  it held); 0 while it serves, or where the directory keeps none. A refill that finds no serving
 *                  copy of a key takes the copy of the replica that stopped serving last (client/README.md,
 *                  "Every copy down at once").
 */
public record Membership(
    long epoch, int replicas, long[] memberIds, int[] states, long[] incarnations, int[] placements, int phase,
    long[] leftLive)
{
    /** Serves reads and takes writes. */
    public static final int LIVE = 1;
    /** Back from a failure, or new: being filled with copies; not read until the directory says it is live. */
    public static final int JOINING = 2;
    /** Its lease ran out: declared gone, so nobody reads or changes its memory any more; it keeps its place. */
    public static final int DOWN = 3;
    /** Being drained: still live, its keys moving to the members that take its place. */
    public static final int LEAVING = 4;

    /** In the placement keys have now: the one before the change in progress. */
    public static final int PLACED_BEFORE = 1;
    /** In the placement keys have once the change in progress completes. */
    public static final int PLACED_AFTER = 2;
    /** In both: every member while no change runs; a member neither added nor drained during one. */
    public static final int PLACED = PLACED_BEFORE | PLACED_AFTER;

    /** No membership change runs: the two placements are one. */
    public static final int STEADY = 0;
    /** Writes go to both placements' replicas, the before placement serves; members entering a placement fill. */
    public static final int FILL = 1;
    /** Writes go on as in the fill; a read of a key whose placement changes needs its two heads to agree. */
    public static final int SWITCH = 2;
    /**
     * Each key whose placement changes is handed over to its replicas after the change (its last replica before is
     * sealed), and written there; a read of one needs its two heads to agree. A change goes on from here: no abort.
     */
    public static final int HANDOVER = 3;
    /** The after placement serves; members leaving a key's placement are still written, never read. */
    public static final int CLEANUP = 4;

    /** In {@link #leftLive}: the member came back as another incarnation since it stopped serving. */
    public static final long MEMORY_LOST = Long.MIN_VALUE;

    public Membership
    {
        if (replicas < 1)
        {
            throw new IllegalArgumentException("a cluster keeps at least 1 copy of each key: replicas=" + replicas);
        }
        if (memberIds.length != states.length || memberIds.length != incarnations.length ||
            memberIds.length != placements.length || memberIds.length != leftLive.length)
        {
            throw new IllegalArgumentException(memberIds.length + " members but " + states.length + " states, " +
                incarnations.length + " incarnations, " + placements.length + " placements and " + leftLive.length +
                " times they left live");
        }
        if (phase < STEADY || phase > CLEANUP)
        {
            throw new IllegalArgumentException("no such membership change phase: " + phase);
        }
        for (int i = 0; i < placements.length; i++)
        {
            if (placements[i] < PLACED_BEFORE || placements[i] > PLACED || (phase == STEADY && placements[i] != PLACED))
            {
                throw new IllegalArgumentException("member " + memberIds[i] + " has placement " + placements[i] +
                    " in phase " + phaseName(phase) + ": with no change running every member is placed both before " +
                    "and after");
            }
        }
        memberIds = memberIds.clone();
        states = states.clone();
        incarnations = incarnations.clone();
        placements = placements.clone();
        leftLive = leftLive.clone();
    }

    /** A membership whose members' last times live are not known (0). */
    public Membership(
        final long epoch, final int replicas, final long[] memberIds, final int[] states, final long[] incarnations,
        final int[] placements, final int phase)
    {
        this(epoch, replicas, memberIds, states, incarnations, placements, phase, new long[memberIds.length]);
    }

    /** A membership with no change running: every member placed. */
    public Membership(
        final long epoch, final int replicas, final long[] memberIds, final int[] states, final long[] incarnations)
    {
        this(epoch, replicas, memberIds, states, incarnations, placedAll(memberIds.length), STEADY);
    }

    /** A membership whose incarnations are not known (0), with no change running. */
    public Membership(final long epoch, final int replicas, final long[] memberIds, final int[] states)
    {
        this(epoch, replicas, memberIds, states, new long[memberIds.length]);
    }

    private static int[] placedAll(final int count)
    {
        final int[] placements = new int[count];
        Arrays.fill(placements, PLACED);
        return placements;
    }

    /**
     * @return a membership of these nodes, every one live: what a directory that keeps no states
     * (a fixed list) says.
     */
    public static Membership allLive(final long epoch, final int replicas, final List<NodeRecord> nodes)
    {
        final long[] ids = new long[nodes.size()];
        final long[] incarnations = new long[ids.length];
        for (int i = 0; i < ids.length; i++)
        {
            ids[i] = nodes.get(i).id();
            incarnations[i] = nodes.get(i).epoch();
        }
        final int[] states = new int[ids.length];
        Arrays.fill(states, LIVE);
        return new Membership(epoch, replicas, ids, states, incarnations);
    }

    /** @return the member's state, or 0 when the node is not a member. */
    public int state(final long nodeId)
    {
        for (int i = 0; i < memberIds.length; i++)
        {
            if (memberIds[i] == nodeId)
            {
                return states[i];
            }
        }
        return 0;
    }

    /** @return the member's incarnation in its state, or 0 when it is not a member or the directory keeps none. */
    public long incarnation(final long nodeId)
    {
        for (int i = 0; i < memberIds.length; i++)
        {
            if (memberIds[i] == nodeId)
            {
                return incarnations[i];
            }
        }
        return 0;
    }

    /** @return the member's placement flags, or 0 when the node is not a member. */
    public int placement(final long nodeId)
    {
        for (int i = 0; i < memberIds.length; i++)
        {
            if (memberIds[i] == nodeId)
            {
                return placements[i];
            }
        }
        return 0;
    }

    /**
     * @return when the member last stopped serving (the membership epoch of that change, with {@link #MEMORY_LOST}
     * when it came back as another incarnation since), 0 while it serves or when unknown or no member.
     */
    public long leftLive(final long nodeId)
    {
        for (int i = 0; i < memberIds.length; i++)
        {
            if (memberIds[i] == nodeId)
            {
                return leftLive[i];
            }
        }
        return 0;
    }

    /** @return true when the node is a member whose copies are read: live, or leaving but not gone yet. */
    public boolean serves(final long nodeId)
    {
        final int state = state(nodeId);
        return state == LIVE || state == LEAVING;
    }

    public long[] memberIds()
    {
        return memberIds.clone();
    }

    public int[] states()
    {
        return states.clone();
    }

    public long[] incarnations()
    {
        return incarnations.clone();
    }

    public int[] placements()
    {
        return placements.clone();
    }

    public long[] leftLive()
    {
        return leftLive.clone();
    }

    public static String phaseName(final int phase)
    {
        return switch (phase)
        {
            case STEADY -> "steady";
            case FILL -> "fill";
            case SWITCH -> "switch";
            case HANDOVER -> "handover";
            case CLEANUP -> "cleanup";
            default -> "phase-" + phase;
        };
    }

    public static String placementName(final int placement)
    {
        return switch (placement)
        {
            case PLACED -> "placed";
            case PLACED_BEFORE -> "leaving the placement";
            case PLACED_AFTER -> "entering the placement";
            case 0 -> "not placed";
            default -> "placement-" + placement;
        };
    }

    public static String stateName(final int state)
    {
        return switch (state)
        {
            case LIVE -> "live";
            case JOINING -> "joining";
            case DOWN -> "down";
            case LEAVING -> "leaving";
            case 0 -> "not a member";
            default -> "state-" + state;
        };
    }

    public boolean equals(final Object other)
    {
        return other instanceof Membership that && epoch == that.epoch && replicas == that.replicas &&
            Arrays.equals(memberIds, that.memberIds) && Arrays.equals(states, that.states) &&
            Arrays.equals(incarnations, that.incarnations) && Arrays.equals(placements, that.placements) &&
            phase == that.phase && Arrays.equals(leftLive, that.leftLive);
    }

    public int hashCode()
    {
        return Long.hashCode(epoch) * 31 + Arrays.hashCode(memberIds);
    }

    public String toString()
    {
        final StringBuilder text = new StringBuilder("membership{epoch=").append(epoch).append(", replicas=")
            .append(replicas).append(phase == STEADY ? "" : ", change " + phaseName(phase)).append(", members=[");
        for (int i = 0; i < memberIds.length; i++)
        {
            text.append(i == 0 ? "" : ", ").append(memberIds[i]).append(' ').append(stateName(states[i]));
            if (placements[i] != PLACED)
            {
                text.append(" (").append(placementName(placements[i])).append(')');
            }
        }
        return text.append("]}").toString();
    }
}
