import { randomBytes } from 'node:crypto';
import { type JetStreamClient, StorageType } from '@nats-io/jetstream';
import { type KV, Kvm } from '@nats-io/kv';
import { NODE_SECRET_BYTES } from '@once/journal';
import { ClusterConfigCorruptionError } from './cluster-config-corruption.error';

const SECRET_KEY = 'secret';
const SETTINGS_KEY = 'settings';

/**
 * The KV bucket of a cluster's durable configuration: `ONCE_<name>_CONFIG`.
 * Separate from the bucket of the lease and heartbeats because those may
 * expire (a TTL on the bucket), and the secret must not.
 */
export function clusterConfigBucket(clusterName: string): string {
  return `ONCE_${clusterName}_CONFIG`;
}

/**
 * What a cluster shares besides its journal: the secret every node signs
 * resume tokens with (a token minted by one leader must verify on the next)
 * and the settings record. Kept in a replicated KV bucket, file storage, one
 * revision per key, reads from the stream leader only (a replica could lag).
 */
export class ClusterConfig {
  private constructor(
    private readonly kv: KV,
    readonly bucket: string,
    /** The cluster's secret: created once, by whichever node opened first. */
    readonly secret: Buffer,
    /** The settings last written; `null` until then. */
    public settings: unknown,
  ) {}

  /**
   * Opens (creating when missing) `bucket`, then the secret: every node tries
   * to create it with its own random bytes, the key's create-only write lets
   * exactly one succeed, and the others read the winner's.
   */
  static async open(js: JetStreamClient, bucket: string, replicas: number): Promise<ClusterConfig> {
    const kv = await new Kvm(js).create(bucket, {
      history: 1,
      replicas,
      storage: StorageType.File,
      allow_direct: false,
    });
    let secret: Buffer;
    const candidate = randomBytes(NODE_SECRET_BYTES);
    try {
      await kv.create(SECRET_KEY, candidate);
      secret = candidate;
    } catch (error) {
      const stored = await kv.get(SECRET_KEY);
      if (stored === null || stored.operation !== 'PUT') throw error;
      if (stored.value.byteLength !== NODE_SECRET_BYTES) {
        throw new ClusterConfigCorruptionError(
          bucket,
          SECRET_KEY,
          `it holds ${stored.value.byteLength} bytes, a secret is ${NODE_SECRET_BYTES}`,
        );
      }
      secret = Buffer.from(stored.value);
    }
    const settings = await kv.get(SETTINGS_KEY);
    return new ClusterConfig(kv, bucket, secret, parseSettings(bucket, settings?.value));
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
