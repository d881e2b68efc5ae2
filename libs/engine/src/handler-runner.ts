import { type JournalEntry } from '@once/journal/internal';
import { errorBodyText, okBodyText } from '@once/protocol/internal';
import { type ApplyContext, NO_VERSIONS, applyContextOf } from './apply-context';
import { CommandNotProvidedError } from './command-not-provided.error';
import { CommandError, EngineRefusal, handlerFailedMessage } from './command.error';
import { type CommandBody, decodeCommandBody } from './command-body';
import { type CommandHandler } from './command-handler';
import { type CommandRegistry } from './command-registry';
import { type EngineLogger, describeError } from './engine-logger';

/**
 * What the code in force at an entry's op dispatches: the patterns of its
 * manifest, and every state's version.
 */
export interface Dispatch {
  /**
   * Patterns the manifest in force dispatches; undefined before any
   * manifest was journaled (a journal older than manifests): every pattern
   * the code handles.
   */
  readonly commands: ReadonlySet<string> | undefined;
  /**
   * Patterns this code retired: by name, and those of the manifest in force
   * whose state it retired (see `retiredUnder`).
   */
  readonly retired: ReadonlySet<string>;
  readonly versions: Readonly<Record<string, number>>;
}

/** A journal before its first MANIFEST entry, read by code that retired nothing. */
export const NO_MANIFEST_DISPATCH: Dispatch = Object.freeze({
  commands: undefined,
  retired: new Set<string>(),
  versions: NO_VERSIONS,
});

/**
 * What one run learnt besides its reply, written into an object the caller
 * reuses (apply runs per request): the pattern, the handler's state, and
 * whether the reply is the one the entry first got (false for a retired
 * command, whose first reply cannot be rebuilt).
 */
export interface HandlerRun {
  pattern: string;
  state: string | undefined;
  rebuilt: boolean;
  /**
   * How the run ended, for a caller that answers otherwise than with the
   * outcome body (an HTTP request): `ok`, the handler returned `result`;
   * `refused`, a CommandError (or a refusal journaled at admission) with
   * `code` and `message`; `failed`, an engine refusal (HANDLER_FAILED,
   * UNKNOWN_PATTERN, COMMAND_RETIRED, ASYNC_HANDLER, INVALID_ENTRY) with
   * `code` and `message`.
   */
  ending: 'ok' | 'refused' | 'failed';
  /** What the handler returned, when `ending` is `ok`. */
  result: unknown;
  code: string;
  message: string;
}

/** A {@link HandlerRun} to reuse, before any run. */
export function newHandlerRun(): HandlerRun {
  return {
    pattern: '',
    state: undefined,
    rebuilt: true,
    ending: 'ok',
    result: undefined,
    code: '',
    message: '',
  };
}

/**
 * Runs the handler of a journaled COMMAND and returns its outcome body (JSON
 * text). Whatever goes wrong in the handler becomes a refusal body, because
 * the entry is committed and its answer must be the same on every replay.
 *
 * A throw that is not a CommandError is answered HANDLER_FAILED with a
 * message naming only the op: an error's own message may hold anything (a
 * connection string, a password) and must not reach a client.
 *
 * `failureLog` is set only live (the node passes its logger while it serves;
 * replay passes none, so an old crash is not reported again at every boot):
 * it gets the crash's message and stack, and the handler's `reportFailure`
 * hears of every throw.
 *
 * `decoded` is the entry's body as the live node already parsed it at
 * admission (see `Applier.apply`); without it the body is decoded here.
 *
 * `dispatch` is the code in force at the entry's op: a pattern its manifest
 * does not list is unknown there, whatever this code handles (a rolling
 * upgrade's new command, before every node has it), and the handler's
 * `ctx.version` is its state's version in force. A retired pattern answers
 * COMMAND_RETIRED and changes nothing. The one throw: a pattern the
 * manifest in force lists that nothing handles or retired
 * ({@link CommandNotProvidedError}): applying it otherwise would change
 * history.
 */
export function runCommandHandler(
  commands: CommandRegistry,
  entry: JournalEntry,
  failureLog: EngineLogger | undefined,
  decoded?: CommandBody,
  dispatch: Dispatch = NO_MANIFEST_DISPATCH,
  run?: HandlerRun,
): string {
  const body = decoded ?? decodeCommandBody(entry.body);
  if (run) {
    run.pattern = body ? body.pattern : '';
    run.state = undefined;
    run.rebuilt = true;
    run.ending = 'ok';
    run.result = undefined;
  }
  if (!body) {
    return ended(
      run,
      'failed',
      EngineRefusal.InvalidEntry,
      `entry at op ${entry.op} is not a command body`,
    );
  }
  if (body.refusal) {
    const { code, message, rpcError } = body.refusal;
    return ended(run, 'refused', code, message, rpcError);
  }
  const pattern = body.pattern;
  if (dispatch.retired.has(pattern)) {
    if (run) run.rebuilt = false;
    return ended(
      run,
      'failed',
      EngineRefusal.CommandRetired,
      `the command "${pattern}" was retired; its entry at op ${entry.op} changed nothing`,
    );
  }
  const inForce = dispatch.commands;
  const handler = inForce === undefined || inForce.has(pattern) ? commands.get(pattern) : undefined;
  if (!handler) {
    if (inForce !== undefined && inForce.has(pattern)) {
      throw new CommandNotProvidedError(entry.op, pattern);
    }
    return ended(
      run,
      'failed',
      EngineRefusal.UnknownPattern,
      `no command handler for pattern "${pattern}"`,
    );
  }
  const state = handler.state;
  if (run) run.state = state;
  const versions = dispatch.versions;
  const ctx = applyContextOf(
    entry,
    entry.client,
    versions,
    state === undefined ? 1 : (versions[state] ?? 1),
  );
  try {
    const result: unknown = handler.apply(body.data, ctx);
    if (isThenable(result)) {
      result.then(undefined, () => undefined);
      return ended(
        run,
        'failed',
        EngineRefusal.AsyncHandler,
        `handler for "${body.pattern}" returned a promise; command handlers must be synchronous`,
      );
    }
    if (run) run.result = result;
    return okBodyText(result);
  } catch (error) {
    if (failureLog) reportLive(handler, failureLog, error, body.data, ctx);
    if (error instanceof CommandError) {
      return ended(run, 'refused', error.code, error.message, error.rpcError);
    }
    return ended(run, 'failed', EngineRefusal.HandlerFailed, handlerFailedMessage(entry.op));
  }
}

/** A refusal's outcome body, noted in `run` as `ending`. */
function ended(
  run: HandlerRun | undefined,
  ending: 'refused' | 'failed',
  code: string,
  message: string,
  rpcError?: unknown,
): string {
  if (run) {
    run.ending = ending;
    run.code = code;
    run.message = message;
  }
  return errorBodyText(code, message, rpcError);
}

/** The live side of a throw: the log line with the details, then the handler's own report. */
function reportLive(
  handler: CommandHandler,
  log: EngineLogger,
  error: unknown,
  data: unknown,
  ctx: ApplyContext,
): void {
  if (!(error instanceof CommandError)) {
    log.error(`handler for "${handler.pattern}" failed at op ${ctx.op}: ${describeError(error)}`);
  }
  try {
    handler.reportFailure?.(error, data, ctx);
  } catch (reportError) {
    log.warn(
      `reporting the failure of "${handler.pattern}" at op ${ctx.op} failed: ${describeError(reportError)}`,
    );
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
