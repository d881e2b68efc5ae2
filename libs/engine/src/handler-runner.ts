import { type JournalEntry } from '@once/journal';
import { errorBodyText, okBodyText } from '@once/protocol';
import { type ApplyContext, applyContextOf } from './apply-context';
import { CommandError, EngineRefusal, handlerFailedMessage } from './command.error';
import { type CommandBody, decodeCommandBody } from './command-body';
import { type CommandHandler } from './command-handler';
import { type CommandRegistry } from './command-registry';
import { type EngineLogger, describeError } from './engine-logger';

/**
 * Runs the handler of a journaled COMMAND and returns its outcome body (JSON
 * text). Never throws: whatever goes wrong becomes a refusal body, because
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
 */
export function runCommandHandler(
  commands: CommandRegistry,
  entry: JournalEntry,
  failureLog: EngineLogger | undefined,
  decoded?: CommandBody,
): string {
  const body = decoded ?? decodeCommandBody(entry.body);
  if (!body) {
    return errorBodyText(
      EngineRefusal.InvalidEntry,
      `entry at op ${entry.op} is not a command body`,
    );
  }
  if (body.refusal) {
    const { code, message, rpcError } = body.refusal;
    return errorBodyText(code, message, rpcError);
  }
  const handler = commands.get(body.pattern);
  if (!handler) {
    return errorBodyText(
      EngineRefusal.UnknownPattern,
      `no command handler for pattern "${body.pattern}"`,
    );
  }
  const ctx = applyContextOf(entry);
  try {
    const result: unknown = handler.apply(body.data, ctx);
    if (isThenable(result)) {
      result.then(undefined, () => undefined);
      return errorBodyText(
        EngineRefusal.AsyncHandler,
        `handler for "${body.pattern}" returned a promise; command handlers must be synchronous`,
      );
    }
    return okBodyText(result);
  } catch (error) {
    if (failureLog) reportLive(handler, failureLog, error, body.data, ctx);
    if (error instanceof CommandError) {
      return errorBodyText(error.code, error.message, error.rpcError);
    }
    return errorBodyText(EngineRefusal.HandlerFailed, handlerFailedMessage(entry.op));
  }
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
