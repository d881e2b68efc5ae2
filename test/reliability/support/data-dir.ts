import { join } from 'node:path';
import { SUBLEVEL_NAMES } from '@once/journal/internal';
import { ClassicLevel } from 'classic-level';

/**
 * Direct access to a node's data directory while the node is down, as an
 * operator's tooling (or a bad disk) would touch it: `<dataDir>/leveldb`
 * with the journal and snapshot sublevels (`SUBLEVEL_NAMES`), keyed by the op as an 8-byte
 * big-endian integer, values as raw bytes.
 */

/** The key of `op` in the `journal` and `snapshot` sublevels. */
export function opKey(op: number): Buffer {
  const key = Buffer.alloc(8);
  key.writeBigUInt64BE(BigInt(op));
  return key;
}

/** The key, in the `keyed` sublevel, of the copy of the snapshot its records belong to. */
export { KEYED_SNAPSHOT_COPY_KEY } from '@once/journal/internal';

/** The op of a key of the `journal` or `snapshot` sublevel. */
export function opOfKey(key: Buffer): number {
  return Number(key.readBigUInt64BE(0));
}

function openSublevels(db: ClassicLevel<Buffer, Buffer>) {
  const options = { keyEncoding: 'buffer', valueEncoding: 'buffer' } as const;
  return {
    journal: db.sublevel<Buffer, Buffer>(SUBLEVEL_NAMES.journal, options),
    snapshot: db.sublevel<Buffer, Buffer>(SUBLEVEL_NAMES.snapshot, options),
    keyed: db.sublevel<Buffer, Buffer>(SUBLEVEL_NAMES.keyed, options),
  };
}

export type Sublevels = ReturnType<typeof openSublevels>;

/** Opens `<dataDir>/leveldb` (the node must be down), runs `work`, closes it. */
export async function withLevel<T>(
  dataDir: string,
  work: (sublevels: Sublevels) => Promise<T>,
): Promise<T> {
  const db = new ClassicLevel<Buffer, Buffer>(join(dataDir, 'leveldb'), {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
  });
  await db.open();
  try {
    return await work(openSublevels(db));
  } finally {
    await db.close();
  }
}

/** Every [op, value] of a sublevel, in op order. */
export async function rows(
  sublevel: Sublevels['journal'],
): Promise<Array<{ op: number; value: Buffer }>> {
  const all = await sublevel.iterator().all();
  return all.map(([key, value]) => ({ op: opOfKey(key), value }));
}

/** Every [op, value] of the journal and snapshot sublevels of `dataDir`, as stored now. */
export function readAll(dataDir: string): Promise<{
  journal: Array<{ op: number; value: Buffer }>;
  snapshot: Array<{ op: number; value: Buffer }>;
}> {
  return withLevel(dataDir, async ({ journal, snapshot }) => ({
    journal: await rows(journal),
    snapshot: await rows(snapshot),
  }));
}
