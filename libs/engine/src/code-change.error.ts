/**
 * The journal (or a snapshot) and the code that boots on it disagree about
 * the code: a module or a command gone without being retired, a version
 * above the code's, a handler that no longer gives the reply it gave. No
 * older snapshot and no replay can mend that, so the node stops where it
 * met it, naming what to change, instead of trying another way.
 */
export abstract class CodeChangeError extends Error {
  abstract readonly code: string;
  /** The op the node stopped at (the entry or the snapshot's op). */
  abstract readonly op: number;
}
