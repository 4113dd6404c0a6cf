package io.dkv.meta;

import io.dkv.raas.Membership;
import io.dkv.raas.meta.MemberRecord;
import io.dkv.raas.meta.MetaRpcDescriptor;
import io.dkv.raas.meta.MetaRpcException;

import java.util.StringJoiner;

/**
 * Who may found the memory tier, and whether it is founded. A memory node that is no member and registers without
 * asking to join <em>founds</em>: it becomes a live placed member at once, with no keys moved to it. That is right
 * only while the store holds no keys: on a running store the keys placed on it would read as absent. So a node
 * founds only while the store is not founded yet and, when founders are named ({@link MetaServerContext#founders}),
 * it is one of them; any other is refused, saying how to join.
 *
 * <p>The store is founded once every named founder is a member (with none named, once the first member founded it
 * alone), or once a membership change begins (keys move: there is a store to keep). It stays founded: the fact is
 * kept in the store and sent to the peer, since it cannot always be read back from the membership (a drained
 * founder is no member, yet must not found again).
 *
 * <p>Not thread-safe: {@link MetaState} serialises.
 */
final class Founders
{
    private static final long[] NONE = new long[0];

    private final long[] named;
    private long[] foundedBy;

    /**
     * @param named  the founders named, or none.
     * @param stored the founders the store says founded it, or null when it is not founded.
     */
    Founders(final long[] named, final long[] stored)
    {
        this.named = named == null ? NONE : named.clone();
        this.foundedBy = stored == null ? null : stored.clone();
    }

    /** @return true once the store is founded; no node founds it again. */
    boolean founded()
    {
        return foundedBy != null;
    }

    /** @return the founders of a founded store, or null while it is not founded. */
    long[] foundedBy()
    {
        return foundedBy == null ? null : foundedBy.clone();
    }

    /** @return true when this node, no member, founds rather than be refused: the store is not founded yet. */
    boolean mayFound(final long nodeId)
    {
        return foundedBy == null && (named.length == 0 || isNamed(nodeId));
    }

    /**
     * A memory node that is no member registers without asking to join.
     *
     * @throws MetaRpcException with {@link MetaRpcDescriptor#STATUS_CONFLICT} naming the node, the founders and how
     *                          to join, unless it may found.
     */
    void requireMayFound(final long nodeId, final Members members)
    {
        if (mayFound(nodeId))
        {
            return;
        }
        if (foundedBy != null)
        {
            throw new MetaRpcException(MetaRpcDescriptor.STATUS_CONFLICT, "memory node " + nodeId +
                " is no member of this store (founded by " + list(foundedBy) + "): start it with --join to add " +
                "it by moving keys to it");
        }
        throw new MetaRpcException(MetaRpcDescriptor.STATUS_CONFLICT, "memory node " + nodeId +
            " is no founder of this store (founders " + list(named) + "; " + unregistered(members) +
            " not registered yet): start it with --join to add it by moving keys to it once the store is founded");
    }

    /**
     * A memory node that is no member asks to be added (BEGIN_ADD) while the store is not founded: a founder founds,
     * with no keys to move; any other waits for the founders, since adding it would begin a change and found the
     * store without them.
     *
     * @throws MetaRpcException with {@link MetaRpcDescriptor#STATUS_CONFLICT} naming the node and the founders not
     *                          registered yet, unless it may found.
     */
    void requireMayAdd(final long nodeId, final Members members)
    {
        if (!mayFound(nodeId))
        {
            throw new MetaRpcException(MetaRpcDescriptor.STATUS_CONFLICT, "node " + nodeId + " cannot be added: the " +
                "store is not founded yet (founders " + list(named) + "; " + unregistered(members) +
                " not registered yet); ask again once they are (membership epoch " + members.epoch() + ")");
        }
    }

    /**
     * Judge the membership as it is now.
     *
     * @return true when that founded the store just now: the caller keeps the fact.
     */
    boolean judge(final Members members)
    {
        if (foundedBy != null)
        {
            return false;
        }
        if (members.phase() != Membership.STEADY || (named.length == 0 ? members.size() > 0 : allNamed(members)))
        {
            foundedBy = named.length > 0 ? named.clone() : ids(members);
            return foundedBy.length > 0;
        }
        return false;
    }

    /**
     * The peer MetaServer says the store is founded.
     *
     * @param peerFoundedBy its founders, or null when it did not say.
     * @return true when that founded the store here: the caller keeps the fact.
     */
    boolean foundedAtPeer(final long[] peerFoundedBy)
    {
        if (foundedBy != null || peerFoundedBy == null)
        {
            return false;
        }
        foundedBy = peerFoundedBy.clone();
        return true;
    }

    /** @return every named founder is a member, or a member is no named founder (added by a change). */
    private boolean allNamed(final Members members)
    {
        for (final long founder : named)
        {
            if (members.member(founder) == null)
            {
                for (final MemberRecord member : members.all())
                {
                    if (!isNamed(member.nodeId()))
                    {
                        return true;
                    }
                }
                return false;
            }
        }
        return true;
    }

    private boolean isNamed(final long nodeId)
    {
        for (final long founder : named)
        {
            if (founder == nodeId)
            {
                return true;
            }
        }
        return false;
    }

    private String unregistered(final Members members)
    {
        final StringJoiner missing = new StringJoiner(", ");
        for (final long founder : named)
        {
            if (members.member(founder) == null)
            {
                missing.add(Long.toString(founder));
            }
        }
        return missing.toString();
    }

    private static long[] ids(final Members members)
    {
        final long[] ids = new long[members.size()];
        int i = 0;
        for (final MemberRecord member : members.all())
        {
            ids[i++] = member.nodeId();
        }
        return ids;
    }

    private static String list(final long[] ids)
    {
        final StringJoiner text = new StringJoiner(", ");
        for (final long id : ids)
        {
            text.add(Long.toString(id));
        }
        return text.toString();
    }

    @Override
    public String toString()
    {
        return foundedBy != null ? "founded by " + list(foundedBy) :
            named.length == 0 ? "not founded, by the first memory node to register" :
            "not founded, by " + list(named);
    }
}
