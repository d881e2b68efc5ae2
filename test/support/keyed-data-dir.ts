import { join } from 'node:path';
import {
  type KeyedHead,
  JournalStore,
  KEYED_HEAD_KEY,
  SUBLEVEL_NAMES,
} from '@once/journal/internal';
import { type KeyedStateMarker } from '@once/engine/internal';
import { ClassicLevel } from 'classic-level';
import {
  type EngineSnapshot,
  decodeEngineSnapshot,
} from '../../libs/engine/src/engine-snapshot-codec';
import { hashRecord } from '../../libs/engine/src/keyed/record-hash';

/**
 * A stopped node's keyed state as its data directory holds it: the newest
 * snapshot (decoded), the keyed sublevel's head, and the records of the
 * head's generation, read back byte for byte, with the digest recomputed
 * from them alone, as the node's own (incremental) digest must equal.
 */
export interface KeyedDataDir {
  /** The newest snapshot's op and bytes. */
  readonly snapshotOp: number;
  readonly payload: Buffer;
  readonly snapshot: EngineSnapshot;
  /** The journal's first and last op. */
  readonly firstOp: number;
  readonly lastOp: number;
  readonly head: KeyedHead | undefined;
  /** `state/map` → key → value (parsed JSON), for the head's generation only. */
  readonly records: Map<string, Map<string, unknown>>;
  /** The digest and counts of `records`, computed here from the bytes read. */
  readonly recomputed: KeyedStateMarker;
  /** Generations that still hold records besides the head's (left for the background delete). */
  readonly otherGenerations: number[];
}

const HEAD_KEY = KEYED_HEAD_KEY;

/** Reads `dataDir` (the node must be down). */
export async function readKeyedDataDir(dataDir: string): Promise<KeyedDataDir> {
  const store = await JournalStore.open(dataDir);
  let snapshotOp: number;
  let payload: Buffer;
  let firstOp: number;
  let lastOp: number;
  try {
    const newest = (await store.listSnapshots())[0];
    if (!newest || !('payload' in newest)) {
      throw new Error(`${dataDir} has no readable snapshot: ${JSON.stringify(newest)}`);
    }
    snapshotOp = newest.op;
    payload = newest.payload;
    firstOp = store.firstOp;
    lastOp = store.lastOp;
  } finally {
    await store.close();
  }

  const db = new ClassicLevel<Buffer, Buffer>(join(dataDir, 'leveldb'), {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
  });
  await db.open();
  try {
    const keyed = db.sublevel<Buffer, Buffer>(SUBLEVEL_NAMES.keyed, {
      keyEncoding: 'buffer',
      valueEncoding: 'buffer',
    });
    const headBytes = await keyed.get(HEAD_KEY);
    const head =
      headBytes === undefined ? undefined : (JSON.parse(headBytes.toString('utf8')) as KeyedHead);
    const records = new Map<string, Map<string, unknown>>();
    const others = new Set<number>();
    let digestA = 0;
    let digestB = 0;
    // Generation 0 holds the head and the snapshot's copy; records start at generation 1.
    for await (const [key, value] of keyed.iterator({ gte: Buffer.from([0, 0, 0, 1]) })) {
      const generation = key.readUInt32BE(0);
      if (generation !== head?.generation) {
        others.add(generation);
        continue;
      }
      const full = key.subarray(4).toString('utf8');
      const json = value.toString('utf8');
      const [hashA, hashB] = hashRecord(full, json);
      digestA = (digestA ^ hashA) >>> 0;
      digestB = (digestB ^ hashB) >>> 0;
      const separator = full.indexOf('\u0000');
      const map = full.slice(0, separator);
      if (!records.has(map)) records.set(map, new Map());
      records.get(map)!.set(full.slice(separator + 1), JSON.parse(json));
    }
    const recomputed: KeyedStateMarker = {
      digest: digestA.toString(16).padStart(8, '0') + digestB.toString(16).padStart(8, '0'),
      counts: [...records]
        .map(([map, entries]) => [map, entries.size] as const)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    };
    return {
      snapshotOp,
      payload,
      snapshot: decodeEngineSnapshot(payload),
      firstOp,
      lastOp,
      head,
      records,
      recomputed,
      otherGenerations: [...others],
    };
  } finally {
    await db.close();
  }
}

/**
 * Asserts what a graceful stop leaves: the newest snapshot carries keyed
 * state, the head names its op, and the records on disk are exactly what its
 * marker says (same digest, recomputed from the bytes; same counts).
 */
export function expectRecordsMatchSnapshot(dir: KeyedDataDir): void {
  expect(dir.snapshot.keyed).toBeDefined();
  expect(dir.head?.op).toBe(dir.snapshotOp);
  expect(dir.recomputed).toEqual(dir.snapshot.keyed);
}

/** The ledger's accounts as the records on disk hold them. */
export function ledgerAccounts(dir: KeyedDataDir): Record<string, unknown> {
  return Object.fromEntries(dir.records.get('ledger/accounts') ?? new Map<string, unknown>());
}

/** The ledger's transfer references as the records on disk hold them. */
export function ledgerReferences(dir: KeyedDataDir): string[] {
  return [...(dir.records.get('ledger/references')?.keys() ?? [])].sort();
}
