import {
  type KeyedCheckpoint,
  type KeyedHead,
  type KeyedRecordReader,
} from '@once/journal/internal';
import { type KeyedStore } from '../keyed';

/**
 * The keyed records of a data directory, held in memory: what a property
 * test that applies thousands of histories writes its snapshots' records
 * to instead of a LevelDB per snapshot. It keeps what the journal's keyed
 * sublevel keeps (records under a generation, and the head written with
 * each checkpoint) and nothing else; the runs on a real data directory
 * (the replay properties on `OnceNode`) check the sublevel itself.
 */
export class MemoryKeyedRecords implements KeyedRecordReader {
  private headValue: KeyedHead | undefined;

  private constructor(
    private readonly rows: Map<string, Buffer>,
    head: KeyedHead | undefined,
  ) {
    this.headValue = head;
  }

  static empty(): MemoryKeyedRecords {
    return new MemoryKeyedRecords(new Map(), undefined);
  }

  head(): KeyedHead | undefined {
    return this.headValue;
  }

  get(generation: number, key: string): string | undefined {
    return this.rows.get(rowKey(generation, Buffer.from(key, 'utf8')))?.toString('utf8');
  }

  // eslint-disable-next-line @typescript-eslint/require-await
  async *records(generation: number, keyPrefix?: Buffer): AsyncIterable<readonly [Buffer, Buffer]> {
    const prefix = `${generation}:`;
    const rows = [...this.rows]
      .filter(([key]) => key.startsWith(prefix))
      .map(([key, value]) => [Buffer.from(key.slice(prefix.length), 'hex'), value] as const)
      .filter(
        ([key]) => keyPrefix === undefined || key.subarray(0, keyPrefix.length).equals(keyPrefix),
      )
      .sort(([a], [b]) => Buffer.compare(a, b));
    yield* rows;
  }

  /** Writes `checkpoint` with a snapshot at `op`, as the journal does in the snapshot's batch. */
  write(checkpoint: KeyedCheckpoint, op: number): void {
    for (let next = checkpoint.changes.next(); !next.done; next = checkpoint.changes.next()) {
      const [key, value] = next.value;
      if (value === undefined) this.rows.delete(rowKey(checkpoint.generation, key));
      else this.rows.set(rowKey(checkpoint.generation, key), Buffer.from(value));
    }
    this.headValue = { generation: checkpoint.generation, op };
  }

  /** Writes what `store` changed since its last checkpoint, with a snapshot at `op` (as the scheduler does). */
  checkpoint(store: KeyedStore, op: number): void {
    if (!store.persistent) return;
    this.write(store.seal(), op);
    store.sealedWritten();
  }

  /** A copy as the records stand now: a data directory as it was at this snapshot. */
  copy(): MemoryKeyedRecords {
    return new MemoryKeyedRecords(new Map(this.rows), this.headValue);
  }
}

function rowKey(generation: number, key: Buffer): string {
  return `${generation}:${key.toString('hex')}`;
}
