import { CodeChangeError } from './code-change.error';

/**
 * The journal holds a state at a version this code does not provide (a
 * downgrade), or a state or a command this code does not have at all (an
 * older node meeting a newer node's manifest). The node applies nothing at
 * or after that op until it runs code that provides it.
 */
export class ModuleVersionUnsupportedError extends CodeChangeError {
  readonly code = 'MODULE_VERSION_UNSUPPORTED';
  constructor(
    readonly op: number,
    /** The state (module) or command pattern concerned. */
    readonly subject: string,
    message: string,
  ) {
    super(message);
  }
}
