import { type BenchOptions } from './bench-options';
import { type BuildSnapshot } from './build-snapshot';

/** What every measurement phase of one bench invocation shares. */
export interface BenchContext {
  readonly options: BenchOptions;
  /** A temporary directory for data directories, removed at the end. */
  readonly workDir: string;
  /** The build every child runs from. */
  readonly build: BuildSnapshot;
  /** ONCE_ADMIN_PASSWORD of every service the bench starts (random per invocation). */
  readonly adminPassword: string;
  /** Progress lines for the operator. */
  readonly log: (line: string) => void;
}
