import { type JetStreamClient, StorageType } from '@nats-io/jetstream';
import { type KV, Kvm } from '@nats-io/kv';
import { NODE_SECRET_BYTES } from '@once/journal/internal';
import { ClusterConfigCorruptionError } from './cluster-config-corruption.error';
import {
  type LeaseHolder,
  type LeaseSeal,
  decodeLeaseValue,
  encodeLeaseValue,
} from '../lease/lease-value';

/** Where builds before cluster keys kept the resume-token secret, in the clear. */
const LEGACY_SECRET_KEY = 'secret';
const SETTINGS_KEY = 'settings';
/** The highest leader term the cluster has had, signed as a lease value is. */
const TERM_KEY = 'term';
/** How often {@link ClusterConfig.recordTerm} reads and writes again when another node wrote between. */
const TERM_WRITE_ATTEMPTS = 3;

/**
 * The seal of cluster `clusterName`'s term record: scoped to the config
 * bucket's `term` key, so neither a lease value nor another cluster's record
 * verifies as it.
 */
export function termRecordSeal(keyring: LeaseSeal['keyring'], clusterName: string): LeaseSeal {
  return { keyring, scope: `${clusterConfigBucket(clusterName)}/${TERM_KEY}` };
}

/**
 * The KV bucket of a cluster's durable configuration: `ONCE_<name>_CONFIG`.
 * Separate from the bucket of the lease and heartbeats because those may
 * expire (a TTL on the bucket), and the settings must not.
 */
export function clusterConfigBucket(clusterName: string): string {
  return `ONCE_${clusterName}_CONFIG`;
}

/**
 * What a cluster shares besides its journal: the settings record, in a
 * replicated KV bucket, file storage, one revision per key, reads from the
 * stream leader only (a replica could lag); and the secret every node signs
 * resume tokens with, which is NOT in the bucket: each node derives it from
 * the cluster key (`ClusterKeyring.resumeSecret`), which NATS never holds,
 * so whoever reads the bucket cannot mint a token.
 */
export class ClusterConfig {
  private constructor(
    private readonly kv: KV,
    readonly bucket: string,
    /** The cluster's resume-token secret, as given (derived from the cluster key). */
    readonly secret: Buffer,
    /** The settings last written; `null` until then. */
    public settings: unknown,
    /** What signs and verifies the term record (see `termRecordSeal`). */
    private readonly termSeal: LeaseSeal,
  ) {}

  /**
   * Opens (creating when missing) `bucket` and reads the settings. A
   * resume-token secret an older build left there in the clear is purged
   * (its history with it): it signs nothing any more, and anyone able to
   * read the bucket could mint tokens with it.
   */
  static async open(
    js: JetStreamClient,
    bucket: string,
    replicas: number,
    secret: Buffer,
    termSeal: LeaseSeal,
  ): Promise<ClusterConfig> {
    if (secret.byteLength !== NODE_SECRET_BYTES) {
      throw new RangeError(`the resume-token secret must be ${NODE_SECRET_BYTES} bytes`);
    }
    const kv = await new Kvm(js).create(bucket, {
      history: 1,
      replicas,
      storage: StorageType.File,
      allow_direct: false,
    });
    const legacy = await kv.get(LEGACY_SECRET_KEY);
    if (legacy !== null && legacy.operation === 'PUT') await kv.purge(LEGACY_SECRET_KEY);
    const settings = await kv.get(SETTINGS_KEY);
    return new ClusterConfig(kv, bucket, secret, parseSettings(bucket, settings?.value), termSeal);
  }

  /**
   * The highest leader term recorded (see {@link recordTerm}); 0 when none is,
   * or when the record does not verify (written by no node: it must not
   * raise the terms). The lease key expires with its holder, so after the
   * whole cluster stopped only this keeps terms increasing.
   */
  async recordedTerm(): Promise<number> {
    const seal = this.termSeal;
    const entry = await this.kv.get(TERM_KEY);
    if (entry === null || entry.operation !== 'PUT') return 0;
    return decodeLeaseValue(entry.value, seal).holder?.term ?? 0;
  }

  /**
   * Records `holder`'s term unless the record holds a higher one already:
   * written against the revision read, so of two nodes writing at once the
   * higher term stays. Rejects when NATS does not answer.
   */
  async recordTerm(holder: LeaseHolder): Promise<void> {
    const seal = this.termSeal;
    const value = encodeLeaseValue(holder, seal);
    for (let attempt = 1; ; attempt++) {
      const entry = await this.kv.get(TERM_KEY);
      const held = entry?.operation === 'PUT';
      if (held && (decodeLeaseValue(entry.value, seal).holder?.term ?? 0) >= holder.term) return;
      try {
        if (entry === null) await this.kv.create(TERM_KEY, value);
        else await this.kv.update(TERM_KEY, value, entry.revision);
        return;
      } catch (error) {
        if (attempt >= TERM_WRITE_ATTEMPTS) throw error;
      }
    }
  }

  /** Replaces the settings record with (a JSON copy of) `settings`; resolves once stored. */
  async putSettings(settings: unknown): Promise<void> {
    const text = JSON.stringify(settings);
    if (text === undefined) throw new TypeError('settings must be JSON-serializable');
    await this.kv.put(SETTINGS_KEY, text);
    this.settings = JSON.parse(text) as unknown;
  }
}

function parseSettings(bucket: string, value: Uint8Array | undefined): unknown {
  if (value === undefined || value.byteLength === 0) return null;
  try {
    return JSON.parse(Buffer.from(value).toString('utf8')) as unknown;
  } catch (error) {
    throw new ClusterConfigCorruptionError(bucket, SETTINGS_KEY, `not JSON: ${String(error)}`);
  }
}
