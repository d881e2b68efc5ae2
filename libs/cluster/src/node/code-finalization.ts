import { type KV } from '@nats-io/kv';
import { type CodeManifest, type CodeSupport, unsupportedBy } from '@once/engine/internal';
import {
  type AdvertisedCode,
  HEARTBEAT_KEYS,
  type NodeInfo,
  decodeNodeInfo,
  type HeartbeatSeal,
  nodeIdOfKey,
} from '../heartbeat';

/** What a node's heartbeat advertises of `support`. */
export function advertisedCodeOf(support: CodeSupport): AdvertisedCode {
  return {
    states: [...support.states],
    commands: [...support.commands].sort(),
    owners: [...support.owners].sort(([a], [b]) => (a < b ? -1 : 1)),
    retiredStates: [...support.retiredStates].sort(),
    retiredCommands: [...support.retiredCommands].sort(),
  };
}

/** The support an advertised code stands for. */
export function supportOf(code: AdvertisedCode): CodeSupport {
  return {
    states: new Map(code.states),
    commands: new Set(code.commands),
    owners: new Map(code.owners),
    retiredStates: new Set(code.retiredStates),
    retiredCommands: new Set(code.retiredCommands),
  };
}

/** A live node whose code cannot apply a manifest, and why. */
export interface BlockingNode {
  readonly node: string;
  readonly reason: string;
}

/**
 * The live nodes (other than `self`) whose code cannot apply entries under
 * `manifest`: a version above theirs, a state or command they lack, or a
 * build that does not advertise its code. A leader journals the manifest
 * only when there is none, so no node meets a version it does not have.
 */
export function nodesBlocking(
  manifest: CodeManifest,
  live: ReadonlyMap<string, NodeInfo>,
  self: string,
): BlockingNode[] {
  const blocking: BlockingNode[] = [];
  for (const [node, info] of [...live].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (node === self) continue;
    if (!info.code) {
      blocking.push({ node, reason: 'its build does not advertise the versions it provides' });
      continue;
    }
    const verdict = unsupportedBy(manifest, supportOf(info.code));
    if (!verdict) continue;
    const reason =
      verdict.kind === 'state-too-new'
        ? `it provides "${verdict.state}" at version ${verdict.provided}, not ${verdict.journaled}`
        : verdict.kind === 'state-missing'
          ? `it does not provide the state "${verdict.state}"`
          : `it does not provide the command "${verdict.pattern}"`;
    blocking.push({ node, reason });
  }
  return blocking;
}

/**
 * The live nodes' heartbeats as the bucket holds them now: read key by
 * key rather than from a watch, which may not have delivered every node
 * yet. An expired heartbeat is gone from the bucket (its TTL).
 */
export async function readLiveNodes(kv: KV, seal: HeartbeatSeal): Promise<Map<string, NodeInfo>> {
  const live = new Map<string, NodeInfo>();
  const keys: string[] = [];
  for await (const key of await kv.keys(HEARTBEAT_KEYS)) keys.push(key);
  for (const key of keys) {
    const node = nodeIdOfKey(key);
    if (node === undefined) continue;
    const entry = await kv.get(key);
    if (!entry || entry.operation !== 'PUT') continue;
    const info = decodeNodeInfo(entry.value, seal, node);
    if (info) live.set(node, info);
  }
  return live;
}
