import { type ApplyContext, type ConnectionScopedState, ReplicatedState } from '@once/framework';
import { type ClientId } from '@once/protocol';

interface GroupsSnapshot {
  /** [group key, members sorted] in key order. */
  groups: Array<[string, ClientId[]]>;
}

/**
 * Consumer groups: a membership belongs to a live connection. The engine
 * releases it through a journaled entry when the connection ends, when the
 * session ends, and at boot (no connection survives a restart).
 */
@ReplicatedState('groups')
export class GroupsState implements ConnectionScopedState {
  /** "streamId/group" → members. */
  private readonly groups = new Map<string, Set<ClientId>>();

  static key(streamId: number, group: string): string {
    return `${streamId}/${group}`;
  }

  join(key: string, client: ClientId): void {
    let members = this.groups.get(key);
    if (!members) this.groups.set(key, (members = new Set()));
    members.add(client);
  }

  /** Members, sorted by client id. */
  members(key: string): ClientId[] {
    return [...(this.groups.get(key) ?? [])].sort();
  }

  releaseClient(client: ClientId, _ctx: ApplyContext): void {
    for (const [key, members] of this.groups) {
      if (members.delete(client) && members.size === 0) this.groups.delete(key);
    }
  }

  holders(): ClientId[] {
    const all = new Set<ClientId>();
    for (const members of this.groups.values()) for (const client of members) all.add(client);
    return [...all].sort();
  }

  toSnapshot(): GroupsSnapshot {
    return {
      groups: [...this.groups.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, members]) => [key, [...members].sort()]),
    };
  }

  fromSnapshot(snapshot: unknown): void {
    this.groups.clear();
    for (const [key, members] of (snapshot as GroupsSnapshot).groups)
      this.groups.set(key, new Set(members));
  }
}
