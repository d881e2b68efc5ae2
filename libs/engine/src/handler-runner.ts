import { type JournalEntry } from '@once/journal';
import { errorBodyText, okBodyText } from '@once/protocol';
import { applyContextOf } from './apply-context';
import { CommandError, EngineRefusal } from './command.error';
import { decodeCommandBody } from './command-body';
import { type CommandRegistry } from './command-registry';
import { type EngineLogger } from './engine-logger';

/**
 * Runs the handler of a journaled COMMAND and returns its outcome body (JSON
 * text). Never throws: whatever goes wrong becomes a refusal body, because
 * the entry is committed and its answer must be the same on every replay.
 *
 * `failureLog` sees handler crashes (not CommandErrors, which are answers);
 * the live node passes its logger, replay passes none, so an old crash is not
 * reported again at every boot.
 */
export function runCommandHandler(
  commands: CommandRegistry,
  entry: JournalEntry,
  failureLog: EngineLogger | undefined,
): string {
  const body = decodeCommandBody(entry.body);
  if (!body) {
    return errorBodyText(
      EngineRefusal.InvalidEntry,
      `entry at op ${entry.op} is not a command body`,
    );
  }
  if (body.refusal) return errorBodyText(body.refusal.code, body.refusal.message);
  const handler = commands.get(body.pattern);
  if (!handler) {
    return errorBodyText(
      EngineRefusal.UnknownPattern,
      `no command handler for pattern "${body.pattern}"`,
    );
  }
  try {
    const result: unknown = handler.apply(body.data, applyContextOf(entry));
    if (isThenable(result)) {
      result.then(undefined, () => undefined);
      return errorBodyText(
        EngineRefusal.AsyncHandler,
        `handler for "${body.pattern}" returned a promise; command handlers must be synchronous`,
      );
    }
    return okBodyText(result);
  } catch (error) {
    if (error instanceof CommandError) return errorBodyText(error.code, error.message);
    const message = error instanceof Error ? error.message : String(error);
    failureLog?.error(`handler for "${body.pattern}" failed at op ${entry.op}: ${message}`);
    return errorBodyText(EngineRefusal.HandlerFailed, message);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
