import { type AdmissionContext } from './admission-context';
import { CommandError } from './command.error';
import { encodeCommandBody } from './command-body';
import { type CommandRegistry } from './command-registry';

/**
 * Prepares a command for the journal: runs its admission step (if any) and
 * encodes the entry body. `rawBody` (the request's own JSON) is journaled
 * as-is when no admission step transforms it.
 *
 * Admission is where whatever must not be replayed happens (hashing a
 * password, drawing a salt): its output is journaled, so apply, live or in
 * replay, only reads it. A refusal at admission is journaled too, as a
 * refusal body, so the request number is used and a retry gets the same answer.
 */
export async function admitCommand(
  commands: CommandRegistry,
  pattern: string,
  data: unknown,
  ctx: AdmissionContext,
  rawBody?: Buffer,
): Promise<Buffer> {
  const handler = commands.get(pattern);
  if (!handler?.admit) return rawBody ?? encodeCommandBody({ pattern, data });
  try {
    const admitted: unknown = await handler.admit(data, ctx);
    return encodeCommandBody({ pattern, data: admitted });
  } catch (error) {
    const refusal =
      error instanceof CommandError
        ? { code: error.code, message: error.message }
        : {
            code: 'ADMISSION_FAILED',
            message: error instanceof Error ? error.message : String(error),
          };
    return encodeCommandBody({ pattern, refusal });
  }
}
