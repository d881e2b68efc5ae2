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

/** The heartbeat's value: `{"advertise":…,"startedAt":…,"code":…}` in UTF-8 JSON. */
export function encodeNodeInfo(info: NodeInfo): Uint8Array {
  return Buffer.from(
    JSON.stringify({ advertise: info.advertise, startedAt: info.startedAt, code: info.code }),
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
  const code = advertisedCodeOf(record.code);
  return code ? { advertise, startedAt, code } : { advertise, startedAt };
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
