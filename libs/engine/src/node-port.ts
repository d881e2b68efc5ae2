import { type JournalStore } from '@once/journal/internal';
import { type Observable } from 'rxjs';
import { type Engine } from './engine';
import { type PingClusterView } from './ping-cluster-view';
import { type OnceNodeOptions } from './once-node';
import { type ReplayProgress } from './replay-saga';

/**
 * A cluster's node as the application sees it: its id and its cluster's name
 * (the boot log), its role and the op the stream holds (metrics, health).
 */
export interface NodeMembership {
  readonly nodeId: string;
  readonly clusterName: string;
  /** Its role and the leader it knows, as PING tells them; read each time. */
  readonly view: PingClusterView;
  /** Highest op known to be in the cluster's stream, as far as this node knows without asking it. */
  readonly streamOp: number;
}

/**
 * What an application needs of a node, whatever keeps its journal: the
 * single LevelDB node (`OnceNode`) and a cluster's node (`@once/cluster`)
 * both are one. The framework opens a node through a {@link OnceNodeFactory}
 * and knows nothing else of it, so that a single-node application never
 * loads what a cluster needs (the NATS client).
 */
export interface OnceNodePort {
  /** The engine that admits, applies and answers. */
  readonly engine: Engine;
  /** The node's LevelDB journal: all of it on a single node, the applied copy in a cluster. */
  readonly localJournal: JournalStore;
  /** The node in its cluster; null for a single node. */
  readonly cluster: NodeMembership | null;
  /**
   * Runs the boot sequence: emits replay progress, completes when the node
   * serves, errors (leaving the node not ready) when it cannot.
   */
  boot(): Observable<ReplayProgress>;
  /**
   * Graceful stop: what was admitted commits, a snapshot is written unless
   * `snapshot: false`, the journal closes. Idempotent.
   */
  stop(options?: { snapshot?: boolean }): Promise<void>;
}

/**
 * Opens a node over the application's options (its data directory, handlers,
 * states, limits): where `OnceModule` is told which kind of node to run.
 * The application's `main.ts` (or root module) is the only place that
 * chooses: `singleNode` (the default) or `clusterNode({...})` from
 * `@once/cluster`. Rejects when the node cannot open (the directory is in
 * use, the cluster unreachable); nothing stays open then.
 */
export type OnceNodeFactory = (options: OnceNodeOptions) => Promise<OnceNodePort>;
