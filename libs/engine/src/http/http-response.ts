import { EngineRefusal } from '../command.error';
import { type HandlerRun } from '../handler-runner';
import { type HttpRequestBody } from './http-request-body';
import { type HttpResponseRecord } from './http-request';

/** The code of the 422 answered to a key reused for another request. */
export const IDEMPOTENCY_KEY_REUSED = 'IDEMPOTENCY_KEY_REUSED';

/** Status of an engine refusal (HANDLER_FAILED and the like): the server's fault, not the request's. */
const FAILED_STATUS = 500;
const REUSED_STATUS = 422;
const EMPTY = Buffer.alloc(0);

/** An HTTP error body, `{"code":…,"message":…}` in that key order. */
export function httpErrorBody(code: string, message: string): Buffer {
  return Buffer.from(JSON.stringify({ code, message }));
}

/**
 * The response of an HTTP request whose apply step just ran (see
 * `runCommandHandler`, which filled `run`):
 * - returned: the request's `status`, the result as JSON (an `undefined`
 *   result: an empty body);
 * - refused with a CommandError: its `refusalStatus`, `{"code","message"}`;
 * - an engine refusal (HANDLER_FAILED, UNKNOWN_PATTERN, COMMAND_RETIRED,
 *   ASYNC_HANDLER): 500, the same body shape.
 */
export function httpResponseOf(
  run: HandlerRun,
  request: HttpRequestBody,
  op: number,
): HttpResponseRecord {
  switch (run.ending) {
    case 'ok': {
      // The outcome body was written from this very value, so it is JSON-able.
      const json = run.result === undefined ? undefined : JSON.stringify(run.result);
      return { status: request.status, body: json === undefined ? EMPTY : Buffer.from(json), op };
    }
    case 'refused':
      return { status: request.refusalStatus, body: httpErrorBody(run.code, run.message), op };
    case 'failed':
      return { status: FAILED_STATUS, body: httpErrorBody(run.code, run.message), op };
  }
}

/** What an HTTP_REQUEST entry whose body does not read answers (it changes nothing). */
export function invalidHttpEntryResponse(op: number): HttpResponseRecord {
  return {
    status: FAILED_STATUS,
    body: httpErrorBody(
      EngineRefusal.InvalidEntry,
      `entry at op ${op} is not an HTTP request body`,
    ),
    op,
  };
}

/** What a key reused for another request answers (422); recorded nowhere. */
export function reusedKeyResponse(op: number): HttpResponseRecord {
  return {
    status: REUSED_STATUS,
    body: httpErrorBody(
      IDEMPOTENCY_KEY_REUSED,
      'this Idempotency-Key was used for another request; use a new key for a new request',
    ),
    op,
  };
}
