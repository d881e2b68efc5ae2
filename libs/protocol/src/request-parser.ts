import { isUtf8 } from 'node:buffer';
import { type Frame } from './frame';
import { isZero } from './zero-bytes';
import { Command, HEADER_SIZE, Offset, Operation, Status } from './wire-constants';

/** A request whose header and body obey the rules its operation has on its own. */
export type ParsedRequest =
  | { operation: Operation.Register; username: string; password: string }
  | { operation: Operation.Logout }
  | { operation: Operation.Command; pattern: string; data: unknown }
  | { operation: Operation.Query; pattern: string; data: unknown }
  | { operation: Operation.Ping };

export type RequestParseResult =
  | { ok: true; request: ParsedRequest }
  | { ok: false; status: Status.InvalidRequest; message: string };

type Refusal = Extract<RequestParseResult, { ok: false }>;

/**
 * Applies the request-level rules of PROTOCOL.md to a frame that decoded
 * cleanly, before anything is journaled.
 *
 * Only rules that need no server state live here. Checks the COMMAND table
 * orders after the client-table lookup (`request` = 0 on COMMAND and LOGOUT,
 * the session epoch) are left to the caller, so that their answers (EVICTION,
 * EPOCH_AHEAD, ...) keep the documented precedence.
 *
 * Never throws: every malformed input is an INVALID_REQUEST result.
 */
export function parseRequest(frame: Frame): RequestParseResult {
  try {
    return parseChecked(frame);
  } catch (error) {
    // Unreachable for a Frame that keeps its invariants; a peer must never crash the node.
    return invalid(`malformed request: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function parseChecked(frame: Frame): RequestParseResult {
  const { header, raw, body } = frame;
  if ((header.command as Command) !== Command.Request) {
    return invalid(`command ${header.command} is not REQUEST (1)`);
  }
  if (header.status !== 0) return invalid(`status ${header.status} must be 0 on a request`);
  if (header.reserved !== 0) return invalid(`reserved ${header.reserved} must be 0`);
  if (!isZero(raw, Offset.op, HEADER_SIZE)) {
    return invalid('request header bytes 96..127 must be zero');
  }

  const hasClient = !isZero(raw, Offset.client, Offset.client + 16);
  // Any u8 may arrive; the default case catches what the enum does not name.
  switch (header.operation as Operation) {
    case Operation.Register: {
      if (!hasClient) return invalid('REGISTER needs a non-zero client');
      if (header.session !== 0) return invalid('REGISTER needs session 0');
      if (header.request !== 0) return invalid('REGISTER needs request 0');
      const json = parseJsonObject(body, 'REGISTER');
      if ('ok' in json) return json;
      const { username, password } = json.value;
      if (typeof username !== 'string') return invalid('REGISTER body needs a string "username"');
      if (typeof password !== 'string') return invalid('REGISTER body needs a string "password"');
      return accept({ operation: Operation.Register, username, password });
    }
    case Operation.Logout: {
      if (!hasClient) return invalid('LOGOUT needs a non-zero client');
      if (body.length !== 0) return invalid('LOGOUT needs an empty body');
      return accept({ operation: Operation.Logout });
    }
    case Operation.Command: {
      if (!hasClient) return invalid('COMMAND needs a non-zero client');
      const call = parsePatternBody(body, 'COMMAND');
      if ('ok' in call) return call;
      return accept({ operation: Operation.Command, ...call });
    }
    case Operation.Query: {
      if (header.request !== 0) return invalid('QUERY needs request 0');
      const call = parsePatternBody(body, 'QUERY');
      if ('ok' in call) return call;
      return accept({ operation: Operation.Query, ...call });
    }
    case Operation.Ping: {
      if (header.session !== 0) return invalid('PING needs session 0');
      if (header.request !== 0) return invalid('PING needs request 0');
      if (body.length !== 0) return invalid('PING needs an empty body');
      return accept({ operation: Operation.Ping });
    }
    default:
      return invalid(`unknown operation ${header.operation}`);
  }
}

/** `{"pattern": non-empty string, "data": any}`; an absent `data` is `null`. */
function parsePatternBody(
  body: Buffer,
  operation: string,
): { pattern: string; data: unknown } | Refusal {
  const json = parseJsonObject(body, operation);
  if ('ok' in json) return json;
  const { pattern, data } = json.value;
  if (typeof pattern !== 'string' || pattern.length === 0) {
    return invalid(`${operation} body needs a non-empty string "pattern"`);
  }
  return { pattern, data: data === undefined ? null : data };
}

/**
 * The body as a JSON object. Invalid UTF-8 is refused rather than silently
 * replaced with U+FFFD, which would hand the handler text the client never sent.
 */
function parseJsonObject(
  body: Buffer,
  operation: string,
): { value: Record<string, unknown> } | Refusal {
  if (body.length === 0) return invalid(`${operation} needs a JSON object body`);
  if (!isUtf8(body)) return invalid(`${operation} body is not valid UTF-8`);
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return invalid(`${operation} body is not valid JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalid(`${operation} body must be a JSON object`);
  }
  return { value: value as Record<string, unknown> };
}

function accept(request: ParsedRequest): RequestParseResult {
  return { ok: true, request };
}

function invalid(message: string): Refusal {
  return { ok: false, status: Status.InvalidRequest, message };
}
