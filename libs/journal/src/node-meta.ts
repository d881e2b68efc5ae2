import { createHash } from 'node:crypto';
import { NodeMetaCorruptionError } from './node-meta-corruption.error';
import { UnsupportedFormatError } from './unsupported-format.error';

/**
 * The on-disk format this build writes and reads. 2: the meta and snapshot
 * sublevels sort before the journal's keys (see `SUBLEVEL_NAMES`). 3: the
 * keyed records of module states (`.keyed`) and engine snapshots that carry
 * their marker may be present, which a build of format 2 cannot read. A
 * format-1 or format-2 directory is upgraded when opened (see
 * `upgradeFromFormat1` and `upgradeFromFormat2`).
 */
export const FORMAT_VERSION = 3;

/** The meta sublevel's key of the identity record. */
export const META_KEY = 'meta';

/**
 * The data directory's identity record (`.meta` sublevel, key `meta`, JSON).
 *
 * It ties the directory to its node secret (by fingerprint, never the secret
 * itself) and carries the node's settings as last written, so that a restart
 * can tell whether they changed.
 */
export interface NodeMeta {
  /** {@link FORMAT_VERSION} when written by this build. */
  readonly formatVersion: number;
  /** When the data directory was initialized, ms since the Unix epoch. */
  readonly createdAtMs: number;
  /** Hex of the first 8 bytes of sha256(node secret). */
  readonly secretFingerprint: string;
  /** Free-form JSON last written by `updateSettings`; `null` until then. */
  readonly settings: unknown;
}

const FINGERPRINT_PATTERN = /^[0-9a-f]{16}$/;

/** Hex of the first 8 bytes of sha256(secret): identifies a secret without revealing it. */
export function secretFingerprint(secret: Buffer): string {
  return createHash('sha256').update(secret).digest().subarray(0, 8).toString('hex');
}

/** The meta record of a directory initialized now with `secret`. */
export function newNodeMeta(secret: Buffer, createdAtMs: number): NodeMeta {
  return Object.freeze({
    formatVersion: FORMAT_VERSION,
    createdAtMs,
    secretFingerprint: secretFingerprint(secret),
    settings: null,
  });
}

/** The JSON stored for `meta`. */
export function serializeNodeMeta(meta: NodeMeta): string {
  return JSON.stringify({
    formatVersion: meta.formatVersion,
    createdAtMs: meta.createdAtMs,
    secretFingerprint: meta.secretFingerprint,
    settings: meta.settings,
  });
}

/**
 * Parses and checks a stored meta record of the data directory `dir`.
 * Throws {@link UnsupportedFormatError} for a format version other than
 * `formatVersion` (this build's unless told) and {@link NodeMetaCorruptionError}
 * for anything unreadable.
 */
export function parseNodeMeta(
  dir: string,
  text: string,
  formatVersion: number = FORMAT_VERSION,
): NodeMeta {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new NodeMetaCorruptionError(dir, 'not valid JSON', { cause: error });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new NodeMetaCorruptionError(dir, 'not a JSON object');
  }
  const record = value as Record<string, unknown>;
  // The version first: a future format may change every other field.
  if (record.formatVersion !== formatVersion) {
    throw new UnsupportedFormatError(dir, record.formatVersion, FORMAT_VERSION);
  }
  const { createdAtMs, secretFingerprint: fingerprint, settings } = record;
  if (typeof createdAtMs !== 'number' || !Number.isSafeInteger(createdAtMs)) {
    throw new NodeMetaCorruptionError(dir, 'createdAtMs is not an integer');
  }
  if (typeof fingerprint !== 'string' || !FINGERPRINT_PATTERN.test(fingerprint)) {
    throw new NodeMetaCorruptionError(dir, 'secretFingerprint is not 16 hex digits');
  }
  return Object.freeze({
    formatVersion,
    createdAtMs,
    secretFingerprint: fingerprint,
    settings: settings ?? null,
  });
}
