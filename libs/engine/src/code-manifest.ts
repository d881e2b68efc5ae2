/**
 * The code a journal is applied under from one op on: every replicated state
 * with its version, and the command patterns dispatched. It is journaled (a
 * MANIFEST entry) whenever the code that boots differs from the one in
 * force, so every entry is applied under the versions that held when it was
 * first applied, by every node and on every replay.
 *
 * Pure data and pure functions: no I/O, no NestJS.
 */
export interface CodeManifest {
  /** State name → version in force, in name order. */
  readonly states: ReadonlyMap<string, number>;
  /** Command patterns dispatched, sorted. */
  readonly commands: ReadonlySet<string>;
  /**
   * The state each command belongs to (its handler's module), for those
   * that belong to one: retiring a state retires its commands with it.
   */
  readonly owners: ReadonlyMap<string, string>;
}

/** What this build's code provides, against which a journaled manifest is checked. */
export interface CodeSupport {
  /** State name → the version the code is written for (it applies every version up to it). */
  readonly states: ReadonlyMap<string, number>;
  readonly commands: ReadonlySet<string>;
  /** The state each provided command belongs to (see {@link CodeManifest.owners}). */
  readonly owners: ReadonlyMap<string, string>;
  /** States the team retired on purpose: their data is dropped, their name tolerated. */
  readonly retiredStates: ReadonlySet<string>;
  /** Command patterns the team retired on purpose: old entries answer COMMAND_RETIRED. */
  readonly retiredCommands: ReadonlySet<string>;
}

/** A state version is a whole number from 1 (the default) up. */
export const FIRST_VERSION = 1;
/** The highest version a state may declare (a u32 in snapshots). */
export const VERSION_MAX = 0xffff_ffff;

/** A MANIFEST entry's body does not read as a manifest. */
export class ManifestInvalidError extends Error {
  readonly code = 'MANIFEST_INVALID';
}

/** Whether `version` is a valid state version. */
export function isStateVersion(version: unknown): version is number {
  return (
    typeof version === 'number' &&
    Number.isSafeInteger(version) &&
    version >= FIRST_VERSION &&
    version <= VERSION_MAX
  );
}

/** The manifest of code that provides `support`: its states at their versions and its patterns. */
export function manifestOf(support: CodeSupport): CodeManifest {
  return normalise(support.states, support.commands, support.owners);
}

function normalise(
  states: Iterable<[string, number]>,
  commands: Iterable<string>,
  owners: Iterable<[string, string]>,
): CodeManifest {
  const patterns = new Set([...commands].sort(compareText));
  return {
    states: new Map([...states].sort(([a], [b]) => compareText(a, b))),
    commands: patterns,
    owners: new Map(
      [...owners]
        .filter(([pattern]) => patterns.has(pattern))
        .sort(([a], [b]) => compareText(a, b)),
    ),
  };
}

/** The body of a MANIFEST entry: deterministic JSON (names sorted). */
export function encodeManifest(manifest: CodeManifest): Buffer {
  const sorted = normalise(manifest.states, manifest.commands, manifest.owners);
  return Buffer.from(
    JSON.stringify({
      states: [...sorted.states],
      commands: [...sorted.commands],
      owners: [...sorted.owners],
    }),
  );
}

/** Reads a MANIFEST entry's body; throws {@link ManifestInvalidError} when it is not one. */
export function decodeManifest(body: Uint8Array): CodeManifest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(
      Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'),
    );
  } catch {
    throw new ManifestInvalidError('the manifest is not JSON');
  }
  const { states, commands, owners } = (parsed ?? {}) as {
    states?: unknown;
    commands?: unknown;
    owners?: unknown;
  };
  if (!Array.isArray(states) || !Array.isArray(commands) || !Array.isArray(owners)) {
    throw new ManifestInvalidError('the manifest has no "states", "commands" and "owners" lists');
  }
  const pairs: Array<[string, number]> = [];
  for (const pair of states as unknown[]) {
    if (!Array.isArray(pair) || typeof pair[0] !== 'string' || !isStateVersion(pair[1])) {
      throw new ManifestInvalidError('a manifest state is not a [name, version] pair');
    }
    pairs.push([pair[0], pair[1]]);
  }
  for (const pattern of commands as unknown[]) {
    if (typeof pattern !== 'string') {
      throw new ManifestInvalidError('a manifest command is not a pattern string');
    }
  }
  const owned: Array<[string, string]> = [];
  for (const pair of owners as unknown[]) {
    if (!Array.isArray(pair) || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') {
      throw new ManifestInvalidError('a manifest owner is not a [pattern, state] pair');
    }
    owned.push([pair[0], pair[1]]);
  }
  return normalise(pairs, commands as string[], owned);
}

/** Whether two manifests say the same (the order they were built in does not count). */
export function sameManifest(a: CodeManifest, b: CodeManifest): boolean {
  if (a.states.size !== b.states.size || a.commands.size !== b.commands.size) return false;
  if (a.owners.size !== b.owners.size) return false;
  for (const [name, version] of a.states) if (b.states.get(name) !== version) return false;
  for (const pattern of a.commands) if (!b.commands.has(pattern)) return false;
  for (const [pattern, state] of a.owners) if (b.owners.get(pattern) !== state) return false;
  return true;
}

/**
 * Why code providing `support` cannot apply entries under `manifest`, or
 * undefined when it can: a state at a version above the code's (a
 * downgrade), a state or a command the code neither provides nor retired
 * (an older node meeting newer code's manifest). The first reason found, in
 * name order.
 */
export type ManifestVerdict =
  | {
      readonly kind: 'state-too-new';
      readonly state: string;
      readonly journaled: number;
      readonly provided: number;
    }
  | { readonly kind: 'state-missing'; readonly state: string; readonly journaled: number }
  | { readonly kind: 'command-missing'; readonly pattern: string };

export function unsupportedBy(
  manifest: CodeManifest,
  support: CodeSupport,
): ManifestVerdict | undefined {
  for (const [state, journaled] of manifest.states) {
    const provided = support.states.get(state);
    if (provided === undefined) {
      if (support.retiredStates.has(state)) continue;
      return { kind: 'state-missing', state, journaled };
    }
    if (journaled > provided) return { kind: 'state-too-new', state, journaled, provided };
  }
  for (const pattern of manifest.commands) {
    if (!support.commands.has(pattern) && !retiredUnder(manifest, support, pattern)) {
      return { kind: 'command-missing', pattern };
    }
  }
  return undefined;
}

/**
 * Whether code providing `support` retired `pattern` of `manifest`: by
 * name, or with the state the manifest says it belongs to.
 */
export function retiredUnder(
  manifest: CodeManifest,
  support: Pick<CodeSupport, 'retiredCommands' | 'retiredStates'>,
  pattern: string,
): boolean {
  if (support.retiredCommands.has(pattern)) return true;
  const owner = manifest.owners.get(pattern);
  return owner !== undefined && support.retiredStates.has(owner);
}

/** One line naming what changed from `before` to `after` (for the boot log). */
export function describeManifestChange(
  before: CodeManifest | undefined,
  after: CodeManifest,
): string {
  if (!before) {
    const states = [...after.states].map(([name, version]) => `${name} v${version}`).join(', ');
    return `first manifest: states ${states || 'none'}; ${after.commands.size} commands`;
  }
  const changes: string[] = [];
  for (const [name, version] of after.states) {
    const was = before.states.get(name);
    if (was === undefined) changes.push(`state ${name} added at v${version}`);
    else if (was !== version) changes.push(`state ${name} v${was} → v${version}`);
  }
  for (const name of before.states.keys()) {
    if (!after.states.has(name)) changes.push(`state ${name} removed`);
  }
  const added = [...after.commands].filter((pattern) => !before.commands.has(pattern));
  const removed = [...before.commands].filter((pattern) => !after.commands.has(pattern));
  if (added.length > 0) changes.push(`commands added: ${added.join(', ')}`);
  if (removed.length > 0) changes.push(`commands removed: ${removed.join(', ')}`);
  return changes.join('; ') || 'unchanged';
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
