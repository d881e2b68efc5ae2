import { type ClassicLevel } from 'classic-level';
import { type NativeChainedBatch } from './keyed-records';
import { type SnapshotLevel } from './leveldb-layout';
import { decodeOpKey, encodeOpKey } from './op-key';
import { decodeSnapshot, encodeSnapshot, type SnapshotRecord } from './snapshot-codec';

/**
 * Snapshots of the engine's state, keyed by the op they include.
 *
 * Why keep more than one: the newest may be the one a crash tore or a bit flip
 * hit; an older intact one plus the journal after it rebuilds the same state.
 */
export class SnapshotStore {
  /**
   * @param db the root database: synced writes go through it, since only its
   *   batch options carry `sync`
   * @param level the snapshot sublevel of `db` (op key → encoded snapshot)
   * @param keptCount how many snapshots `save` keeps
   */
  constructor(
    private readonly db: ClassicLevel<Buffer, Buffer>,
    private readonly level: SnapshotLevel,
    private readonly keptCount: number,
  ) {}

  /**
   * One batch (the snapshot, and whatever `fill` adds to it first: the keyed
   * records written with it), synced unless `sync` is false, then deletes all
   * but the newest `keptCount` snapshots (by op). The deletes need no sync: a
   * crash before they reach the disk leaves only an extra old snapshot
   * behind, and LevelDB's one log keeps them after the batch.
   */
  async save(
    op: number,
    payload: Uint8Array,
    fill?: (batch: NativeChainedBatch, encoded: Buffer) => Promise<void>,
    sync = true,
  ): Promise<void> {
    const batch = (this.db as unknown as { _chainedBatch(): NativeChainedBatch })._chainedBatch();
    try {
      const encoded = encodeSnapshot(op, payload);
      if (fill !== undefined) await fill(batch, encoded);
      batch._put(Buffer.from(this.level.prefixKey(encodeOpKey(op), 'buffer', false)), encoded);
      await batch._write({ sync });
    } finally {
      await batch.close();
    }
    const newestFirst = await this.level.keys({ reverse: true }).all();
    if (newestFirst.length <= this.keptCount) return;
    await this.level.batch(
      newestFirst.slice(this.keptCount).map((key) => ({ type: 'del' as const, key })),
    );
  }

  /**
   * Deletes the snapshots of ops `op` and later (synced): after the journal is
   * truncated at `op` they describe a state that includes dropped entries.
   */
  async deleteFrom(op: number): Promise<void> {
    const keys = await this.level.keys({ gte: encodeOpKey(op) }).all();
    if (keys.length === 0) return;
    await this.db.batch(
      keys.map((key) => ({ type: 'del' as const, sublevel: this.level, key })),
      { sync: true },
    );
  }

  /** Every stored snapshot, newest (highest op) first; bad ones as error records. */
  async list(): Promise<SnapshotRecord[]> {
    const rows = await this.level.iterator({ reverse: true }).all();
    return rows.map(([key, value]) => {
      const op = decodeOpKey(key);
      if (op === undefined) {
        return { op: Number.NaN, error: `snapshot key 0x${key.toString('hex')} is not an op key` };
      }
      return decodeSnapshot(op, value);
    });
  }
}
