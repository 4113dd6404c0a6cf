package io.dkv.compute.command;

import java.util.List;

/**
 * The compute nodes a node answers CLUSTER with: the live ones, each a master of every slot, since any of them serves
 * any key.
 */
public interface ClusterView
{
    /** @return this node. */
    Member self();

    /** @return the live compute nodes, this one among them. */
    List<Member> members();

    /**
     * One compute node as cluster clients reach it.
     *
     * @param id   redis's 40 hex digit node id.
     * @param host where its RESP port is reached.
     * @param port its RESP port.
     */
    record Member(String id, String host, int port)
    {
        /** @return the id redis clients know a node by, from its dkv node id: the same on every node that names it. */
        public static String id(final long nodeId)
        {
            return String.format("%040x", nodeId);
        }
    }

    /** @return a view of one node alone: one that has no RaaS handle to find the others by. */
    static ClusterView alone(final Member self)
    {
        return new ClusterView()
        {
            public Member self()
            {
                return self;
            }

            public List<Member> members()
            {
                return List.of(self);
            }
        };
    }
}
