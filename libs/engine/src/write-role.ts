import { type PingClusterView, SINGLE_NODE_PING } from './ping-cluster-view';

/**
 * Whether this node may append to the journal now, and what it is in its
 * cluster. A single node always writes; a cluster node writes only while it
 * holds the cluster's lease and has caught up with the stream (its term).
 * The gateway reads it to answer writes on a follower with the leader's
 * address instead of admitting them.
 */
export interface WriteRole {
  /** True while this node's appends can succeed: a single node, or a leader in its term. */
  readonly writable: boolean;
  /** What PING reports: node id, role, leader address. */
  readonly view: PingClusterView;
}

/** A node outside any cluster: always writable, no id, no role, no leader. */
export const SINGLE_NODE_ROLE: WriteRole = Object.freeze({
  writable: true,
  view: SINGLE_NODE_PING,
});
