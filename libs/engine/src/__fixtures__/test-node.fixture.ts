import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EntryDraft } from '@once/journal/internal';
import { type ApplyOutcome } from '../apply-outcome';
import { type Engine } from '../engine';
import { lastValueFrom } from 'rxjs';
import { OnceNode, type OnceNodeOptions } from '../once-node';
import { replaySaga } from '../replay-saga';
import { verifyReplay } from '../replay-verification';
import { type SampleModules, sampleModules } from './sample-modules.fixture';

/** A temporary data directory, removed by `cleanup`. */
export async function tempDataDir(
  prefix = 'once-engine-',
): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  return { dir: join(root, 'data'), cleanup: () => rm(root, { recursive: true, force: true }) };
}

export interface TestNode {
  readonly node: OnceNode;
  readonly engine: Engine;
  readonly modules: SampleModules;
}

/** Opens and boots a node with the sample modules on `dir`. */
export async function startTestNode(
  dir: string,
  options: Partial<OnceNodeOptions> = {},
): Promise<TestNode> {
  const modules = sampleModules();
  const node = await OnceNode.open({
    dataDir: dir,
    commands: modules.commands,
    states: modules.states,
    snapshotEveryOps: 0,
    // Snapshots only where a spec takes them (a spec of checkpoints turns them on).
    checkpointIntervalMs: 0,
    progressIntervalMs: 10_000,
    ...options,
  });
  await node.start();
  return { node, engine: node.engine, modules };
}

/** Journals a draft and resolves with its outcome once it is durable and applied. */
export function submit(engine: Engine, draft: EntryDraft): Promise<ApplyOutcome> {
  return new Promise((resolve, reject) => {
    try {
      engine.submit(draft, resolve);
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

/**
 * Replays `dir`'s journal into a fresh node with the sample modules (nothing
 * written) and returns what verification found, the journal's first op and
 * the state reached.
 */
export async function verifyDataDir(dir: string) {
  const modules = sampleModules();
  const node = await OnceNode.open({
    dataDir: dir,
    commands: modules.commands,
    states: modules.states,
  });
  try {
    const result = await verifyReplay(node.journal, node.engine);
    return { ...result, firstOp: node.journal.firstOp, state: node.engine.captureSnapshot() };
  } finally {
    await node.stop({ snapshot: false });
  }
}

/**
 * Replays `dir`'s journal into a fresh node with the sample modules, as a
 * boot does but settling nothing on top (no BOOT entry): from its newest
 * snapshot, or from op 1 with `ignoreSnapshots`. Returns the state reached
 * and the op replay started after; `onOutcome` hears every entry applied.
 */
export async function replayDataDir(
  dir: string,
  options: {
    readonly ignoreSnapshots: boolean;
    readonly journal?: OnceNodeOptions['journal'];
    readonly keyedCacheEntries?: number;
    readonly onOutcome?: (outcome: ApplyOutcome) => void;
  },
): Promise<{ state: Buffer; snapshotOp: number }> {
  const modules = sampleModules();
  const node = await OnceNode.open({
    dataDir: dir,
    commands: modules.commands,
    states: modules.states,
    journal: options.journal,
    keyedCacheEntries: options.keyedCacheEntries,
  });
  try {
    const progress = await lastValueFrom(
      replaySaga(node.journal, node.engine, {
        ignoreSnapshots: options.ignoreSnapshots,
        onOutcome: options.onOutcome,
      }),
    );
    return { state: node.engine.captureSnapshot(), snapshotOp: progress.snapshotOp };
  } finally {
    await node.stop({ snapshot: false });
  }
}
