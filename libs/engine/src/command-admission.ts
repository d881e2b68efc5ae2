import { randomBytes } from 'node:crypto';
import { type AdmissionContext } from './admission-context';
import { CommandError, EngineRefusal } from './command.error';
import { encodeCommandBody } from './command-body';
import { type CommandRegistry } from './command-registry';
import { type EngineLogger, describeError } from './engine-logger';

/**
 * Prepares a command for the journal: runs its admission step (if any) and
 * encodes the entry body. `rawBody` (the request's own JSON) is journaled
 * as-is when no admission step transforms it.
 *
 * Admission is where whatever must not be replayed happens (hashing a
 * password, drawing a salt): its output is journaled, so apply, live or in
 * replay, only reads it. A refusal at admission is journaled too, as a
 * refusal body, so the request number is used and a retry gets the same answer.
 *
 * A CommandError keeps its code, message and rpcError. Any other throw is
 * ADMISSION_FAILED with a message that names an error id and nothing of the
 * error; the id, the message and the stack go to `logger` only.
 */
export async function admitCommand(
  commands: CommandRegistry,
  pattern: string,
  data: unknown,
  ctx: AdmissionContext,
  rawBody?: Buffer,
  logger?: EngineLogger,
): Promise<Buffer> {
  const handler = commands.get(pattern);
  if (!handler?.admit) return rawBody ?? encodeCommandBody({ pattern, data });
  try {
    const admitted: unknown = await handler.admit(data, ctx);
    return encodeCommandBody({ pattern, data: admitted });
  } catch (error) {
    if (error instanceof CommandError) {
      const { code, message, rpcError } = error;
      return encodeCommandBody({ pattern, refusal: { code, message, rpcError } });
    }
    const message = admissionFailedMessage(error, pattern, ctx.userId, logger);
    return encodeCommandBody({
      pattern,
      refusal: { code: EngineRefusal.AdmissionFailed, message },
    });
  }
}

/**
 * The message of an ADMISSION_FAILED refusal for an admission step that
 * threw `error`, not a CommandError: it names a new error id and nothing of
 * the error; the id, the message and the stack go to `logger` only.
 */
export function admissionFailedMessage(
  error: unknown,
  pattern: string,
  userId: number,
  logger?: EngineLogger,
): string {
  const errorId = newErrorId();
  logger?.error(
    `admission step of "${pattern}" for user ${userId} failed (error ${errorId}): ${describeError(error)}`,
  );
  return `the admission step failed (error ${errorId}); the server log has the details`;
}

/**
 * The entry body of a command that has no admission step, at once (what
 * {@link admitCommand} resolves with for it); undefined when the command
 * has one, which only {@link admitCommand} runs. Every command the gateway
 * admits asks this first: a promise and its turns cost more than the
 * encoding, for the bytes they would give.
 */
export function commandBodyAtOnce(
  commands: CommandRegistry,
  pattern: string,
  data: unknown,
  rawBody?: Buffer,
): Buffer | undefined {
  if (commands.get(pattern)?.admit) return undefined;
  return rawBody ?? encodeCommandBody({ pattern, data });
}

/** A reference for one failure, shown to the client and logged with the details. */
export function newErrorId(): string {
  return randomBytes(6).toString('hex');
}
