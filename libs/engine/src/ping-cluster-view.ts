/**
 * What a node is in its cluster, as its PING reply, its metrics and its
 * health report it. The engine's write role carries it (a single node's is
 * {@link SINGLE_NODE_PING}; cluster mode's changes with the lease); the
 * gateway puts it in the PING reply it builds.
 */

/** What this node is in its cluster, as PING reports it. */
export interface PingClusterView {
  /** This node's id (`ONCE_NODE_ID`); null for a single node. */
  readonly node: string | null;
  /**
   * `leader`: this node holds the cluster's lease and appends to the journal;
   * `follower`: another node does; `none`: no holder is known (a single
   * node, or a cluster between leaders).
   */
  readonly role: 'leader' | 'follower' | 'none';
  /** The leader's advertised `host:port` (this node's own when it leads); null when unknown. */
  readonly leader: string | null;
}

/** A node outside any cluster: no id, no role, no leader. */
export const SINGLE_NODE_PING: PingClusterView = Object.freeze({
  node: null,
  role: 'none',
  leader: null,
});
