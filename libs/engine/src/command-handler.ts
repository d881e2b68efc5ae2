import { type AdmissionContext } from './admission-context';
import { type ApplyContext } from './apply-context';

/**
 * One replicated command: how to prepare it for the journal (optional) and how
 * to apply it.
 *
 * `apply` must be deterministic: it reads only its module's state, `data` and
 * `ctx`, and is called once per journal entry, live and on every replay.
 */
export interface CommandHandler {
  readonly pattern: string;
  /**
   * The replicated state (module) this handler belongs to: `ctx.version` is
   * that state's version in force at the entry's op. Undefined: none (the
   * handler sees version 1).
   */
  readonly state?: string;
  /** Synchronous, deterministic; returns the JSON result or throws a CommandError. */
  apply(data: unknown, ctx: ApplyContext): unknown;
  /**
   * Runs once, live, before journaling; what it returns is journaled instead of
   * the request's data (e.g. a password replaced by its salted hash). May be
   * async. A throw becomes a committed refusal (the request number is used).
   */
  admit?(data: unknown, ctx: AdmissionContext): unknown;
  /**
   * The request body carries a secret that `admit` removes: the gateway
   * journals no checksum of the client's body for this command (see the
   * framework's `@Admit(pattern, { secretBody: true })`).
   */
  readonly secretBody?: boolean;
  /**
   * Told, live only (never on replay), that `apply` threw `error`, for side
   * effects such as an application's exception filters (logging, alerting).
   * It cannot change the committed reply, which replay must rebuild to the
   * byte. What it throws is logged and otherwise ignored.
   */
  reportFailure?(error: unknown, data: unknown, ctx: ApplyContext): void;
}
