import {
  FORMAT_1_SUBLEVEL_NAMES,
  type Level,
  metaSublevel,
  SUBLEVEL_NAMES,
} from './leveldb-layout';
import { META_KEY, parseNodeMeta, serializeNodeMeta } from './node-meta';
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
 * cannot be told. A directory this leaves in format 2 goes on to
 * {@link upgradeFromFormat2}.
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
  const upgradedMeta = Buffer.from(serializeNodeMeta({ ...meta, formatVersion: 2 }), 'utf8');
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

/**
 * Upgrades a format-2 data directory to format 3, in place, when `db` is one:
 * checks that nothing is stored under the keyed-state sublevel yet, then
 * rewrites the meta record with format version 3, synced. Nothing else moves.
 *
 * Why a new format although no key moves: format 3 adds what later writes
 * put in the directory, the keyed records of module states (`.keyed`) and
 * engine snapshots that carry a keyed-state marker (engine-snapshot format
 * 3). A build of format 2 would skip such snapshots as unreadable and boot
 * from an older one or from op 1, without the records: with the version in
 * the meta record it refuses the directory instead (`UNSUPPORTED_FORMAT`).
 * What format 2 holds, this build reads as it is: the journal, and snapshots
 * whose whole-object pictures a state that moved to keyed records imports
 * (`KeyedState.importSnapshot`), written as records by the first snapshot
 * after the upgrade.
 *
 * Crash-safe: the check only reads, and the meta record is the one write, a
 * single synced put. A crash before it leaves the format-2 directory as it
 * was, upgraded again at the next open; after it, a format-3 directory,
 * opened as such. No state between exists.
 *
 * Returns whether it upgraded: false for a directory without a meta record
 * (new, or refused later as corrupt) or whose record is not of format 2 (it is
 * read, and refused if need be, by the caller). Refuses a format-2 directory
 * that already holds keyed records: only a build that kept keyed state
 * without this format's version writes them, and whether its snapshots, its
 * records and a format-2 build's later writes still agree cannot be told.
 */
export async function upgradeFromFormat2(db: Level, dir: string): Promise<boolean> {
  const metaLevel = metaSublevel(db);
  const stored = await metaLevel.get(META_KEY);
  if (stored === undefined || formatVersionOf(stored) !== 2) return false;
  const meta = parseNodeMeta(dir, stored, 2);
  const [keyed] = await db
    .keys({ gte: prefixOf(SUBLEVEL_NAMES.keyed), lt: afterPrefix(SUBLEVEL_NAMES.keyed), limit: 1 })
    .all();
  if (keyed !== undefined) {
    throw new NodeMetaCorruptionError(
      dir,
      'it says format 2, but the directory holds keyed records of format 3: a build that kept keyed state without format 3 wrote to it',
    );
  }
  await db.batch(
    [
      {
        type: 'put',
        sublevel: metaLevel,
        key: META_KEY,
        value: serializeNodeMeta({ ...meta, formatVersion: 3 }),
      },
    ],
    { sync: true },
  );
  return true;
}

/**
 * The format of `db` when it is one that {@link upgradeFromFormat1} or
 * {@link upgradeFromFormat2} would upgrade (1 or 2); undefined otherwise.
 * Reads only.
 */
export async function olderFormatOf(db: Level): Promise<number | undefined> {
  if ((await metaSublevel(db, FORMAT_1_SUBLEVEL_NAMES.meta).get(META_KEY)) !== undefined) return 1;
  const stored = await metaSublevel(db).get(META_KEY);
  return stored !== undefined && formatVersionOf(stored) === 2 ? 2 : undefined;
}

/** The `formatVersion` of a stored meta record, or undefined when it cannot be read. */
function formatVersionOf(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null
      ? (value as { formatVersion?: unknown }).formatVersion
      : undefined;
  } catch {
    return undefined;
  }
}
