/**
 * An append asked of a cluster node that does not lead (code `NOT_LEADER`):
 * only the holder of the cluster's lease, once caught up with the stream,
 * appends. The engine reports it as unavailable; the gateway never gets this
 * far on a follower, since it answers writes there with the leader's address.
 */
export class NotLeaderError extends Error {
  readonly code = 'NOT_LEADER';

  constructor(nodeId: string) {
    super(`node ${nodeId} does not lead the cluster: only the leader appends to the journal`);
    this.name = 'NotLeaderError';
  }
}
