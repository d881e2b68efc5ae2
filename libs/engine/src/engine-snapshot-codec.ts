import { type ClientTableHeader } from '@once/client-table/internal';
import { type EngineSettings } from './engine-settings';
import { type KeyedStateMarker, isEmptyMarker, parseKeyedMarker } from './keyed';
import { type StatePicture } from './state-registry';

/**
 * Byte layout of an engine snapshot (little-endian; the journal store wraps it
 * with its own checksum and op):
 *
 *     0   4  magic "OSNP"
 *     4   1  format version (2, 3, 4 or 5; version 1 is still read)
 *     5   3  reserved, 0
 *     8   8  op the snapshot stands at (every entry <= op applied, none after)
 *    16   8  journal timestamp of that op (ns)
 *    24   4  settings JSON length, then the JSON
 *     …   4  expired-sessions JSON length, then the JSON ([client, epoch] pairs, oldest first)
 *     …   4  client table length, then the table's own snapshot bytes; in
 *            format 5, the table's header as JSON (capacity, ring, size):
 *            its sessions are keyed records (map `once:sessions`), counted
 *            and digested in the marker
 *     …   4  state count, then per state (in name order):
 *            2 name length, name (utf8),
 *            4 version of the code that wrote it (format 2 and later; format 1: 1),
 *            4 JSON length, JSON (utf8)
 *     …   4  manifest length (0: none in force), then the MANIFEST entry
 *            body in force (format 2 and later)
 *     …   4  keyed-state marker length, then its JSON (format 3; format 4:
 *            length 0 when there is no marker)
 *     …   4  HTTP key table length, then the table's own bytes (formats 4
 *            and 5; length 0 in format 5 when there is no key): head, tail,
 *            count and times; its records are keyed records, counted and
 *            digested in the marker
 *
 * A snapshot is written in the oldest format that holds it (2 without keyed
 * records or HTTP keys, 3 with keyed records only, 4 with HTTP keys, 5 with
 * the sessions as records), so a build from before those features reads the
 * snapshots of a node that does not use them.
 */
export interface EngineSnapshot {
  readonly op: number;
  readonly timestamp: bigint;
  readonly settings: EngineSettings;
  /** Sessions that expired recently (their next request is told EXPIRED), oldest first. */
  readonly expired: Array<[string, number]>;
  /** The client table's own snapshot bytes; empty when {@link sessions} is given. */
  readonly table: Buffer;
  /**
   * Format 5: the client table's header; its sessions are keyed records
   * (one per session, written as they change), not part of the snapshot.
   */
  readonly sessions?: ClientTableHeader;
  readonly states: readonly StatePicture[];
  /** The body of the MANIFEST entry in force; undefined before any. */
  readonly manifest: Buffer | undefined;
  /**
   * The keyed records at `op` (digest and counts; the records are in the
   * keyed sublevel). Undefined or empty: none, and the snapshot is written
   * in format 2, which builds from before keyed state read.
   */
  readonly keyed?: KeyedStateMarker;
  /**
   * The HTTP key table's own bytes (see `HttpKeyTable.encode`: its head,
   * tail and count; the records are keyed records, in `keyed`). Undefined:
   * no key (a snapshot older than format 4 reads so), and the snapshot is
   * written in an older format.
   */
  readonly httpKeys?: Buffer;
}

const MAGIC = 0x504e534f; // "OSNP"
/** Format 5 keeps the client table's sessions as keyed records; the snapshot holds its header. */
const FORMAT_VERSION_SESSION_RECORDS = 5;
/** Format 4 adds the HTTP key table; a snapshot without HTTP keys is still written in format 2 or 3. */
const FORMAT_VERSION_HTTP_KEYS = 4;
/** Format 3 adds the keyed-state marker; a snapshot without keyed records is still written in format 2. */
const FORMAT_VERSION_KEYED = 3;
const FORMAT_VERSION = 2;
/** Snapshots written before state versions and manifests: every state at version 1. */
const FORMAT_VERSION_UNVERSIONED = 1;

export class SnapshotInvalidError extends Error {
  readonly code = 'SNAPSHOT_INVALID';
}

export function encodeEngineSnapshot(snapshot: EngineSnapshot): Buffer {
  const settings = Buffer.from(JSON.stringify(snapshot.settings));
  const expired = Buffer.from(JSON.stringify(snapshot.expired));
  const states = snapshot.states.map(
    ([name, json, version]) => [Buffer.from(name), Buffer.from(json), version] as const,
  );
  const manifest = snapshot.manifest ?? Buffer.alloc(0);
  const keyed = isEmptyMarker(snapshot.keyed)
    ? undefined
    : Buffer.from(JSON.stringify(snapshot.keyed));
  const sessions = snapshot.sessions;
  const table =
    sessions === undefined
      ? snapshot.table
      : Buffer.from(
          JSON.stringify({ capacity: sessions.capacity, ring: sessions.ring, size: sessions.size }),
        );
  // Format 5 always carries the last two blocks (empty when unused).
  const httpKeys = snapshot.httpKeys ?? (sessions === undefined ? undefined : Buffer.alloc(0));
  let size = 24 + 4 + settings.length + 4 + expired.length + 4 + table.length + 4;
  for (const [name, json] of states) size += 2 + name.length + 4 + 4 + json.length;
  size += 4 + manifest.length;
  if (httpKeys) size += 4 + (keyed?.length ?? 0) + 4 + httpKeys.length;
  else if (keyed) size += 4 + keyed.length;
  const out = Buffer.alloc(size);
  out.writeUInt32LE(MAGIC, 0);
  out.writeUInt8(
    sessions
      ? FORMAT_VERSION_SESSION_RECORDS
      : httpKeys
        ? FORMAT_VERSION_HTTP_KEYS
        : keyed
          ? FORMAT_VERSION_KEYED
          : FORMAT_VERSION,
    4,
  );
  out.writeBigUInt64LE(BigInt(snapshot.op), 8);
  out.writeBigUInt64LE(snapshot.timestamp, 16);
  let at = 24;
  at = writeBlock(out, at, settings);
  at = writeBlock(out, at, expired);
  at = writeBlock(out, at, table);
  out.writeUInt32LE(states.length, at);
  at += 4;
  for (const [name, json, version] of states) {
    out.writeUInt16LE(name.length, at);
    name.copy(out, at + 2);
    at += 2 + name.length;
    out.writeUInt32LE(version, at);
    at = writeBlock(out, at + 4, json);
  }
  at = writeBlock(out, at, manifest);
  if (httpKeys) {
    at = writeBlock(out, at, keyed ?? Buffer.alloc(0));
    at = writeBlock(out, at, httpKeys);
  } else if (keyed) {
    at = writeBlock(out, at, keyed);
  }
  if (at !== size) throw new Error(`snapshot size mismatch: wrote ${at} of ${size} bytes`);
  return out;
}

/** Whether `bytes` (an engine snapshot, maybe malformed) keeps the client table's sessions as keyed records. */
export function snapshotKeepsSessionRecords(bytes: Buffer): boolean {
  return (
    bytes.length > 4 &&
    bytes.readUInt32LE(0) === MAGIC &&
    bytes[4] === FORMAT_VERSION_SESSION_RECORDS
  );
}

export function decodeEngineSnapshot(bytes: Buffer): EngineSnapshot {
  const reader = new Reader(bytes);
  if (reader.u32() !== MAGIC) throw new SnapshotInvalidError('snapshot has a bad magic');
  const version = reader.u8();
  if (
    version !== FORMAT_VERSION_SESSION_RECORDS &&
    version !== FORMAT_VERSION_HTTP_KEYS &&
    version !== FORMAT_VERSION_KEYED &&
    version !== FORMAT_VERSION &&
    version !== FORMAT_VERSION_UNVERSIONED
  ) {
    throw new SnapshotInvalidError(`snapshot format ${version} is not supported`);
  }
  const versioned = version !== FORMAT_VERSION_UNVERSIONED;
  reader.skip(3);
  const op = Number(reader.u64());
  const timestamp = reader.u64();
  const settings = JSON.parse(reader.block().toString('utf8')) as EngineSettings;
  const expired = JSON.parse(reader.block().toString('utf8')) as Array<[string, number]>;
  if (!Array.isArray(expired))
    throw new SnapshotInvalidError('snapshot expired-sessions block is not a list');
  const table = reader.block();
  const count = reader.u32();
  const states: StatePicture[] = [];
  for (let i = 0; i < count; i++) {
    const name = reader.bytes(reader.u16()).toString('utf8');
    const stateVersion = versioned ? reader.u32() : 1;
    if (stateVersion < 1) throw new SnapshotInvalidError(`snapshot state "${name}" has version 0`);
    states.push([name, reader.block().toString('utf8'), stateVersion]);
  }
  let manifest: Buffer | undefined;
  if (versioned) {
    const block = reader.block();
    manifest = block.length > 0 ? block : undefined;
  }
  let keyed: KeyedStateMarker | undefined;
  if (version >= FORMAT_VERSION_KEYED) {
    const block = reader.block();
    // Formats 4 and 5 write an empty block when there is no marker; format 3 never does.
    if (version === FORMAT_VERSION_KEYED || block.length > 0) {
      try {
        keyed = parseKeyedMarker(block.toString('utf8'));
      } catch (error) {
        if (error instanceof SnapshotInvalidError) throw error;
        throw new SnapshotInvalidError('snapshot keyed-state marker is unreadable');
      }
    }
  }
  let httpKeys: Buffer | undefined;
  if (version === FORMAT_VERSION_HTTP_KEYS) httpKeys = reader.block();
  else if (version === FORMAT_VERSION_SESSION_RECORDS) {
    const block = reader.block();
    httpKeys = block.length > 0 ? block : undefined;
  }
  if (!reader.done) throw new SnapshotInvalidError('snapshot has trailing bytes');
  if (version === FORMAT_VERSION_SESSION_RECORDS) {
    const sessions = parseTableHeader(table);
    return {
      op,
      timestamp,
      settings,
      expired,
      table: Buffer.alloc(0),
      sessions,
      states,
      manifest,
      keyed,
      httpKeys,
    };
  }
  return { op, timestamp, settings, expired, table, states, manifest, keyed, httpKeys };
}

/** The client table's header of a format-5 snapshot; malformed: SnapshotInvalidError. */
function parseTableHeader(block: Buffer): ClientTableHeader {
  let parsed: unknown;
  try {
    parsed = JSON.parse(block.toString('utf8'));
  } catch {
    throw new SnapshotInvalidError('snapshot client-table header is unreadable');
  }
  const { capacity, ring, size } = (parsed ?? {}) as Partial<ClientTableHeader>;
  for (const value of [capacity, ring, size]) {
    if (!Number.isSafeInteger(value) || (value as number) < 0) {
      throw new SnapshotInvalidError('snapshot client-table header is unreadable');
    }
  }
  return { capacity: capacity!, ring: ring!, size: size! };
}

function writeBlock(out: Buffer, at: number, block: Buffer): number {
  out.writeUInt32LE(block.length, at);
  block.copy(out, at + 4);
  return at + 4 + block.length;
}

/** Bounds-checked reads that fail as SnapshotInvalidError, never as RangeError. */
class Reader {
  private at = 0;
  constructor(private readonly source: Buffer) {}

  get done(): boolean {
    return this.at === this.source.length;
  }

  private need(count: number): number {
    if (this.at + count > this.source.length) {
      throw new SnapshotInvalidError(`snapshot is truncated at byte ${this.at}`);
    }
    const at = this.at;
    this.at += count;
    return at;
  }

  skip(count: number): void {
    this.need(count);
  }
  u8(): number {
    return this.source.readUInt8(this.need(1));
  }
  u16(): number {
    return this.source.readUInt16LE(this.need(2));
  }
  u32(): number {
    return this.source.readUInt32LE(this.need(4));
  }
  u64(): bigint {
    return this.source.readBigUInt64LE(this.need(8));
  }
  bytes(count: number): Buffer {
    const at = this.need(count);
    return this.source.subarray(at, at + count);
  }
  block(): Buffer {
    return this.bytes(this.u32());
  }
}
