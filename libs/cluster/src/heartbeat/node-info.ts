import { type ClusterKeyring } from '../key';
import { clusterNames } from '../cluster-names';
import { jsonRecordOf } from '../json-record';

/** What a node's heartbeat says of it. */
export interface NodeInfo {
  /** The node's advertised `host:port` (`ONCE_ADVERTISE`); null when it advertises none. */
  readonly advertise: string | null;
  /**
   * When this run of the node started (ms since the epoch, its own clock).
   * It tells a restarted node from the run before it: a new value under the
   * same id means the old run is gone, with whatever it held.
   */
  readonly startedAt: number;
  /**
   * What this node's code provides: the manifests it can apply entries
   * under. A cluster's leader journals a new MANIFEST only when every live
   * node's code provides it. Absent: a node of a build that does not say.
   */
  readonly code?: AdvertisedCode;
}

/** A node's code as its heartbeat advertises it (see `CodeSupport` in `@once/engine`). */
export interface AdvertisedCode {
  /** State name → the version the node's code is written for. */
  readonly states: ReadonlyArray<readonly [string, number]>;
  readonly commands: readonly string[];
  /** Command pattern → the state it belongs to. */
  readonly owners: ReadonlyArray<readonly [string, string]>;
  readonly retiredStates: readonly string[];
  readonly retiredCommands: readonly string[];
}

/** The prefix of heartbeat keys in the cluster's bucket: `node.<id>`. */
const PREFIX = 'node.';

/** The heartbeat key of node `nodeId`. */
export function heartbeatKey(nodeId: string): string {
  return `${PREFIX}${nodeId}`;
}

/** Every heartbeat key, for a watch. */
export const HEARTBEAT_KEYS = `${PREFIX}>`;

/** The node id of heartbeat key `key`, or undefined when it is no heartbeat key. */
export function nodeIdOfKey(key: string): string | undefined {
  if (!key.startsWith(PREFIX)) return undefined;
  const id = key.slice(PREFIX.length);
  return /^[A-Za-z0-9_-]{1,64}$/.test(id) ? id : undefined;
}

/**
 * What authenticates heartbeats: the cluster keyring and the bucket, so a
 * heartbeat signed for one cluster does not verify in another.
 */
export interface HeartbeatSeal {
  readonly keyring: ClusterKeyring;
  /** The cluster's bucket. */
  readonly bucket: string;
}

/** The MAC's place at the end of a heartbeat value: `,"mac":"<base64>"}`. */
const MAC_SUFFIX = /,"mac":"([A-Za-z0-9+/]{43}=)"\}$/;

/**
 * The heartbeat's value of node `nodeId`: `{"advertise":…,"startedAt":…,"code":…,"mac":…}`
 * in UTF-8 JSON. `mac` is the HMAC-SHA256 (the cluster key's heartbeat key)
 * of the bucket, the node's id and the value's own text before it, so the
 * leader never counts a node, nor its code, that no node with the cluster
 * key advertised (upgrade finalization rests on what live nodes provide).
 */
export function encodeNodeInfo(info: NodeInfo, seal: HeartbeatSeal, nodeId: string): Uint8Array {
  const text = JSON.stringify({
    advertise: info.advertise,
    startedAt: info.startedAt,
    code: info.code,
  });
  const mac = seal.keyring.sign('heartbeat', signedParts(seal, nodeId, text)).toString('base64');
  return Buffer.from(`${text.slice(0, -1)},"mac":"${mac}"}`, 'utf8');
}

/**
 * The info a heartbeat value of node `nodeId` holds, or undefined when it is
 * not one this codec writes or its MAC does not verify under the ring.
 */
export function decodeNodeInfo(
  bytes: Uint8Array,
  seal: HeartbeatSeal,
  nodeId: string,
): NodeInfo | undefined {
  const value = Buffer.from(bytes).toString('utf8');
  const match = MAC_SUFFIX.exec(value);
  if (!match) return undefined;
  const text = `${value.slice(0, match.index)}}`;
  const tag = Buffer.from(match[1], 'base64');
  if (!seal.keyring.verify('heartbeat', signedParts(seal, nodeId, text), tag)) return undefined;
  const record = jsonRecordOf(Buffer.from(text, 'utf8'));
  if (!record) return undefined;
  const { advertise, startedAt } = record;
  if (advertise !== null && typeof advertise !== 'string') return undefined;
  if (typeof startedAt !== 'number' || !Number.isSafeInteger(startedAt) || startedAt < 0) {
    return undefined;
  }
  const code = advertisedCodeOf(record.code);
  return code ? { advertise, startedAt, code } : { advertise, startedAt };
}

/** The seal of the bucket `options` name, with their keyring. */
export function heartbeatSealOf(options: {
  readonly keyring: ClusterKeyring;
  readonly clusterName: string;
}): HeartbeatSeal {
  return { keyring: options.keyring, bucket: clusterNames(options.clusterName).bucket };
}

function signedParts(seal: HeartbeatSeal, nodeId: string, text: string): Uint8Array[] {
  return [Buffer.from(`once-heartbeat\0${seal.bucket}\0${nodeId}\0`, 'utf8'), Buffer.from(text)];
}

/** The advertised code a heartbeat holds; undefined when absent or not of this shape. */
function advertisedCodeOf(value: unknown): AdvertisedCode | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { states, commands, owners, retiredStates, retiredCommands } = value as Record<
    string,
    unknown
  >;
  const strings = (list: unknown): list is string[] =>
    Array.isArray(list) && list.every((item) => typeof item === 'string');
  if (!strings(commands) || !strings(retiredStates) || !strings(retiredCommands)) return undefined;
  if (
    !Array.isArray(states) ||
    !states.every(
      (pair) =>
        Array.isArray(pair) &&
        typeof pair[0] === 'string' &&
        Number.isSafeInteger(pair[1]) &&
        (pair[1] as number) >= 1,
    )
  ) {
    return undefined;
  }
  const pairs = (list: unknown): list is Array<[string, string]> =>
    Array.isArray(list) &&
    list.every(
      (pair) => Array.isArray(pair) && typeof pair[0] === 'string' && typeof pair[1] === 'string',
    );
  if (!pairs(owners)) return undefined;
  return {
    states: states as Array<[string, number]>,
    commands,
    owners,
    retiredStates,
    retiredCommands,
  };
}
