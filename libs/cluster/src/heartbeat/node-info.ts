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

/** The heartbeat's value: `{"advertise":…,"startedAt":…}` in UTF-8 JSON. */
export function encodeNodeInfo(info: NodeInfo): Uint8Array {
  return Buffer.from(
    JSON.stringify({ advertise: info.advertise, startedAt: info.startedAt }),
    'utf8',
  );
}

/** The info a heartbeat value holds, or undefined when it is not one this codec writes. */
export function decodeNodeInfo(bytes: Uint8Array): NodeInfo | undefined {
  const record = jsonRecordOf(bytes);
  if (!record) return undefined;
  const { advertise, startedAt } = record;
  if (advertise !== null && typeof advertise !== 'string') return undefined;
  if (typeof startedAt !== 'number' || !Number.isSafeInteger(startedAt) || startedAt < 0) {
    return undefined;
  }
  return { advertise, startedAt };
}
