import {
  FORMAT_1_SUBLEVEL_NAMES,
  type Level,
  metaSublevel,
  SUBLEVEL_NAMES,
} from './leveldb-layout';
import { FORMAT_VERSION, META_KEY, parseNodeMeta, serializeNodeMeta } from './node-meta';
import { NodeMetaCorruptionError } from './node-meta-corruption.error';

/** A put or a delete of the upgrade's one batch, on the root database (prefixed keys). */
type RootOperation =
  | { readonly type: 'put'; readonly key: Buffer; readonly value: Buffer }
  | { readonly type: 'del'; readonly key: Buffer };

/** `!name!`: the key prefix abstract-level gives the sublevel `name` of the root database. */
function prefixOf(name: string): Buffer {
  return Buffer.from(`!${name}!`, 'utf8');
}

/** Every raw row of the root database under the sublevel `name`, in key order. */
async function rowsOf(db: Level, name: string): Promise<Array<[Buffer, Buffer]>> {
  return db.iterator({ gte: prefixOf(name), lt: afterPrefix(name) }).all();
}

/** The first key after every key of the sublevel `name` (its prefix's last byte plus one). */
function afterPrefix(name: string): Buffer {
  const prefix = prefixOf(name);
  prefix[prefix.length - 1]++;
  return prefix;
}

/**
 * Upgrades a format-1 data directory to format 2, in place, when `db` is one:
 * moves the meta sublevel (meta record and first-op key) and every snapshot
 * to their format-2 sublevels (see {@link SUBLEVEL_NAMES}) and rewrites the
 * meta record with the new format version. The journal's keys do not move.
 *
 * Crash-safe: every put and delete is in one synced LevelDB batch, so a crash
 * leaves the directory in format 1 (upgraded again at the next open) or in
 * format 2, never between. Afterwards the range of the old names is compacted
 * at once, so that no table keeps spanning from the journal's keys to them.
 *
 * Returns whether it upgraded. Refuses a directory with both meta records: a
 * build of format 1 wrote to it after its upgrade, and which history is right
 * cannot be told.
 */
export async function upgradeFromFormat1(db: Level, dir: string): Promise<boolean> {
  const legacyMeta = await metaSublevel(db, FORMAT_1_SUBLEVEL_NAMES.meta).get(META_KEY);
  if (legacyMeta === undefined) return false;
  if ((await metaSublevel(db).get(META_KEY)) !== undefined) {
    throw new NodeMetaCorruptionError(
      dir,
      'it is present in both format 1 and format 2: a build of format 1 wrote to the directory after its upgrade',
    );
  }
  const meta = parseNodeMeta(dir, legacyMeta, 1);
  const metaKey = Buffer.concat([prefixOf(SUBLEVEL_NAMES.meta), Buffer.from(META_KEY, 'utf8')]);
  const upgradedMeta = Buffer.from(
    serializeNodeMeta({ ...meta, formatVersion: FORMAT_VERSION }),
    'utf8',
  );
  const operations: RootOperation[] = [];
  for (const [from, to] of [
    [FORMAT_1_SUBLEVEL_NAMES.meta, SUBLEVEL_NAMES.meta],
    [FORMAT_1_SUBLEVEL_NAMES.snapshot, SUBLEVEL_NAMES.snapshot],
  ] as const) {
    const sourceBytes = prefixOf(from).length;
    for (const [key, value] of await rowsOf(db, from)) {
      const moved = Buffer.concat([prefixOf(to), key.subarray(sourceBytes)]);
      operations.push(
        { type: 'del', key },
        { type: 'put', key: moved, value: moved.equals(metaKey) ? upgradedMeta : value },
      );
    }
  }
  await db.batch(operations, { sync: true });
  await db.compactRange(
    prefixOf(FORMAT_1_SUBLEVEL_NAMES.meta),
    afterPrefix(FORMAT_1_SUBLEVEL_NAMES.snapshot),
  );
  return true;
}
