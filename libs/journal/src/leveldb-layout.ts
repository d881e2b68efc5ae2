import { type AbstractSublevel } from 'abstract-level';
import { type ClassicLevel } from 'classic-level';

export type Level = ClassicLevel<Buffer, Buffer>;
type LevelFormat = string | Buffer | Uint8Array;
export type JournalLevel = AbstractSublevel<Level, LevelFormat, Buffer, Buffer>;
export type MetaLevel = AbstractSublevel<Level, LevelFormat, string, string>;
export type SnapshotLevel = AbstractSublevel<Level, LevelFormat, Buffer, Buffer>;
export type KeyedLevel = AbstractSublevel<Level, LevelFormat, Buffer, Buffer>;

/**
 * Sublevel names of the data directory's LevelDB (format 2).
 *
 * Why these names: LevelDB keys sort bytewise, and the journal's keys
 * (`!journal!` + big-endian op) only ever grow. When every other key sorts
 * before them, a table holding meta or snapshot keys ends below every journal
 * key appended later, so a memtable of new entries overlaps no table and
 * LevelDB places it in a deeper level without a compaction. Format 1 named
 * these sublevels `meta` and `snapshot`, which sort after `journal`: from the
 * first snapshot on, every flush of new entries overlapped the table holding
 * it, stayed in level 0 and was soon compacted into it, rewriting about as
 * many bytes as the journal wrote, on the disk of the journal's fsyncs. Only
 * a memtable that itself holds a snapshot or a meta write (one in several at
 * the default snapshot interval) still lands in level 0. A leading `.` sorts
 * before `j`. The keyed records of module states (`.keyed`, format 3) are
 * written with snapshots only, for the same reason.
 */
export const SUBLEVEL_NAMES = Object.freeze({
  journal: 'journal',
  meta: '.meta',
  snapshot: '.snapshot',
  keyed: '.keyed',
});

/** Format 1's names of the sublevels that {@link SUBLEVEL_NAMES} renamed. */
export const FORMAT_1_SUBLEVEL_NAMES = Object.freeze({ meta: 'meta', snapshot: 'snapshot' });

/** The data directory's sublevels, with the encodings every reader uses. */
export interface LevelLayout {
  readonly journal: JournalLevel;
  readonly meta: MetaLevel;
  readonly snapshot: SnapshotLevel;
  readonly keyed: KeyedLevel;
}

/** Opens the sublevels of `db` under `names` ({@link SUBLEVEL_NAMES} unless told). */
export function levelLayout(
  db: Level,
  names: { journal: string; meta: string; snapshot: string; keyed?: string } = SUBLEVEL_NAMES,
): LevelLayout {
  return {
    journal: db.sublevel<Buffer, Buffer>(names.journal, {
      keyEncoding: 'buffer',
      valueEncoding: 'buffer',
    }),
    meta: metaSublevel(db, names.meta),
    snapshot: db.sublevel<Buffer, Buffer>(names.snapshot, {
      keyEncoding: 'buffer',
      valueEncoding: 'buffer',
    }),
    keyed: db.sublevel<Buffer, Buffer>(names.keyed ?? SUBLEVEL_NAMES.keyed, {
      keyEncoding: 'buffer',
      valueEncoding: 'buffer',
    }),
  };
}

/** The meta sublevel `name` of `db` (utf8 keys and values). */
export function metaSublevel(db: Level, name: string = SUBLEVEL_NAMES.meta): MetaLevel {
  return db.sublevel<string, string>(name, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
}
