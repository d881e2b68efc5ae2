import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ClusterKeyError } from './cluster-key.error';

/** The least key material a cluster key holds: 32 bytes (64 hex digits). */
export const CLUSTER_KEY_BYTES_MIN = 32;

/**
 * What each derived key is for. One HKDF label per purpose, so a MAC made
 * for one purpose never verifies for another (a lease value is no group).
 */
export const KeyPurpose = {
  journalGroup: 'once journal group v1',
  lease: 'once lease value v1',
  heartbeat: 'once heartbeat v1',
  resumeToken: 'once resume-token v1',
} as const;

type Purpose = (typeof KeyPurpose)[keyof typeof KeyPurpose];

/** What a MAC is made for: a journal group, a lease value, a node's heartbeat. */
export type MacPurpose = 'journalGroup' | 'lease' | 'heartbeat';

/** One key of the ring, expanded into its per-purpose keys once. */
interface DerivedKeys {
  readonly journalGroup: Buffer;
  readonly lease: Buffer;
  readonly heartbeat: Buffer;
  readonly resumeToken: Buffer;
  /**
   * A retired key verifies journal groups stored at this stream sequence or
   * below only, and no lease value; `Infinity` for a key in service.
   */
  readonly throughSeq: number;
}

/** A key as a ring is given it: its bytes, and for a retired key the last sequence it signed. */
export interface RingKey {
  readonly key: Uint8Array;
  /** Set: the key is retired, it verifies groups at this stream sequence or below only. */
  readonly throughSeq?: number;
}

/**
 * The cluster key(s) every node is given out of band (`ONCE_CLUSTER_KEY_FILE`):
 * nothing a node reads from NATS is trusted unless one of them authenticates
 * it, and NATS never holds any of them.
 *
 * A ring, for rotation without downtime: the first key signs, every key
 * verifies. Each key is expanded with HKDF-SHA256 into one key per purpose
 * ({@link KeyPurpose}); MACs are HMAC-SHA256. The raw keys are dropped once
 * expanded, and no method returns or prints one.
 */
export class ClusterKeyring {
  readonly #keys: readonly DerivedKeys[];

  /**
   * @param keys the first signs and must not be retired; the others verify
   *   (a retired one, see {@link RingKey}, only what it signed before a point)
   */
  constructor(keys: readonly (Uint8Array | RingKey)[]) {
    if (keys.length === 0) {
      throw new ClusterKeyError('CLUSTER_KEY_INVALID', 'the cluster key list is empty');
    }
    this.#keys = keys.map((given, i) => {
      const { key, throughSeq } = given instanceof Uint8Array ? { key: given } : given;
      if (throughSeq !== undefined && i === 0) {
        throw new ClusterKeyError(
          'CLUSTER_KEY_INVALID',
          'the first cluster key signs: it cannot be retired (put the new key first)',
        );
      }
      if (key.byteLength < CLUSTER_KEY_BYTES_MIN) {
        throw new ClusterKeyError(
          'CLUSTER_KEY_INVALID',
          `cluster key ${i + 1} holds ${key.byteLength} bytes, at least ${CLUSTER_KEY_BYTES_MIN} are needed`,
        );
      }
      return {
        journalGroup: derive(key, KeyPurpose.journalGroup),
        lease: derive(key, KeyPurpose.lease),
        heartbeat: derive(key, KeyPurpose.heartbeat),
        resumeToken: derive(key, KeyPurpose.resumeToken),
        throughSeq: throughSeq ?? Infinity,
      };
    });
  }

  /** How many keys verify (the first of them signs). */
  get size(): number {
    return this.#keys.length;
  }

  /** HMAC-SHA256 of `parts` (in order) under the signing key's `purpose` key. */
  sign(purpose: MacPurpose, parts: readonly Uint8Array[]): Buffer {
    return mac(this.#keys[0][purpose], parts);
  }

  /**
   * True when `tag` is the MAC of `parts` under one of the ring's keys for
   * `purpose`. A retired key counts only for a journal group stored at or
   * below its last sequence (`seq`), never for a lease value.
   */
  verify(
    purpose: MacPurpose,
    parts: readonly Uint8Array[],
    tag: Uint8Array,
    seq = Infinity,
  ): boolean {
    if (tag.byteLength !== 32) return false;
    return this.#keys.some(
      (keys) =>
        (keys.throughSeq === Infinity || (purpose === 'journalGroup' && seq <= keys.throughSeq)) &&
        timingSafeEqual(mac(keys[purpose], parts), tag),
    );
  }

  /**
   * The secret resume tokens are signed with, for cluster `clusterName`:
   * derived from the signing key, so it is the same on every node given the
   * same first key and is never stored anywhere. A new signing key makes a
   * new secret: the tokens minted under the old one no longer resume
   * (clients register again).
   */
  resumeSecret(clusterName: string): Buffer {
    return Buffer.from(
      hkdfSync('sha256', this.#keys[0].resumeToken, Buffer.alloc(0), clusterName, 32),
    );
  }
}

/**
 * Reads a cluster key file: one key per line as hex (at least 64 hex digits,
 * 32 bytes; `openssl rand -hex 32` makes one), the first line the signing
 * key, blank lines and lines starting with `#` ignored. A key after the
 * first may be followed by ` through=<seq>`: retired, it verifies only the
 * journal groups stored at that stream sequence or below (what it signed
 * before the rotation), so a stolen old key signs nothing new. Throws
 * {@link ClusterKeyError} naming the file and the line, never the key.
 */
export function readClusterKeyFile(file: string): ClusterKeyring {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new ClusterKeyError(
      'CLUSTER_KEY_UNREADABLE',
      `cannot read the cluster key file ${file}${typeof code === 'string' ? ` (${code})` : ''}`,
    );
  }
  return parseClusterKeys(text, file);
}

/** The keys of a key file's text (see {@link readClusterKeyFile}); `source` names it in errors. */
export function parseClusterKeys(text: string, source: string): ClusterKeyring {
  const keys: RingKey[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const [line, retirement, ...rest] = raw.trim().split(/\s+/);
    if (line === '' || line.startsWith('#')) return;
    let throughSeq: number | undefined;
    if (retirement !== undefined) {
      const match = /^through=([1-9][0-9]{0,15})$/.exec(retirement);
      throughSeq = match ? Number(match[1]) : undefined;
      if (throughSeq === undefined || rest.length > 0) {
        throw new ClusterKeyError(
          'CLUSTER_KEY_INVALID',
          `line ${i + 1} of the cluster key file ${source} has more than a key and "through=<stream sequence>"`,
        );
      }
    }
    if (!/^([0-9a-fA-F]{2})+$/.test(line)) {
      throw new ClusterKeyError(
        'CLUSTER_KEY_INVALID',
        `line ${i + 1} of the cluster key file ${source} is not hex digits (make a key with: openssl rand -hex 32)`,
      );
    }
    if (line.length < CLUSTER_KEY_BYTES_MIN * 2) {
      throw new ClusterKeyError(
        'CLUSTER_KEY_INVALID',
        `the key on line ${i + 1} of the cluster key file ${source} holds ${line.length / 2} bytes, at least ${CLUSTER_KEY_BYTES_MIN} are needed (make one with: openssl rand -hex 32)`,
      );
    }
    keys.push({ key: Buffer.from(line, 'hex'), throughSeq });
  });
  if (keys.length === 0) {
    throw new ClusterKeyError(
      'CLUSTER_KEY_INVALID',
      `the cluster key file ${source} holds no key (make one with: openssl rand -hex 32)`,
    );
  }
  return new ClusterKeyring(keys);
}

function derive(key: Uint8Array, purpose: Purpose): Buffer {
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), purpose, 32));
}

function mac(key: Buffer, parts: readonly Uint8Array[]): Buffer {
  const hmac = createHmac('sha256', key);
  for (const part of parts) hmac.update(part);
  return hmac.digest();
}
