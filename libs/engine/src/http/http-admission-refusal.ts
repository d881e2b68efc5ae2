import { CommandError, EngineRefusal } from '../command.error';
import { admissionFailedMessage } from '../command-admission';
import { type EngineLogger } from '../engine-logger';
import { type HttpRequestDraft, type HttpSubmitResult } from './http-request';
import { httpErrorBody } from './http-response';

/** The status of an admission step's failure that is not a refusal of its own: the server's fault. */
const ADMISSION_FAILED_STATUS = 500;

/**
 * The answer to an HTTP request whose admission step threw, as a command's
 * refusal at admission is worded (see `admitCommand`): a CommandError keeps
 * its code and message, with the route's `refusalStatus`; any other throw is
 * 500 ADMISSION_FAILED naming an error id and nothing of the error, whose
 * details go to `logger`. Nothing of it is journaled or recorded (op 0).
 */
export function httpAdmissionRefusal(
  error: unknown,
  request: HttpRequestDraft,
  logger: EngineLogger,
): Extract<HttpSubmitResult, { kind: 'refused' }> {
  if (error instanceof CommandError) {
    const body = httpErrorBody(error.code, error.message);
    return { kind: 'refused', response: { status: request.refusalStatus, body, op: 0 } };
  }
  const message = admissionFailedMessage(error, request.pattern, request.userId, logger);
  const body = httpErrorBody(EngineRefusal.AdmissionFailed, message);
  return { kind: 'refused', response: { status: ADMISSION_FAILED_STATUS, body, op: 0 } };
}
