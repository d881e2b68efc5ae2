import { type ClientId } from '@once/protocol';

/**
 * Sessions that expired, oldest first, so that a later request of such a
 * client is told EXPIRED rather than NO_SESSION (PROTOCOL.md, "Eviction
 * reasons"). It is replicated state like the table: changed only by apply,
 * kept in snapshots, bounded by the table's capacity so that a stream of
 * one-off clients cannot grow it without end.
 */
export class ExpiredSessions {
  private readonly epochs: Map<ClientId, number>;

  constructor(entries: Iterable<readonly [ClientId, number]> = []) {
    this.epochs = new Map(entries);
  }

  has(client: ClientId): boolean {
    return this.epochs.has(client);
  }

  /** The client registered again: its next refusal is no longer EXPIRED. */
  forget(client: ClientId): void {
    this.epochs.delete(client);
  }

  /** Records `client`'s expiry as the newest, dropping the oldest beyond `limit`. */
  remember(client: ClientId, epoch: number, limit: number): void {
    this.epochs.delete(client);
    this.epochs.set(client, epoch);
    const excess = this.epochs.size - limit;
    if (excess > 0) {
      const oldest = [...this.epochs.keys()].slice(0, excess);
      for (const key of oldest) this.epochs.delete(key);
    }
  }

  /** `[client, epoch]` pairs, oldest first: the snapshot's order. */
  toSnapshot(): Array<[ClientId, number]> {
    return [...this.epochs];
  }
}
