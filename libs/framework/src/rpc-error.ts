import { RpcException } from '@nestjs/microservices';
import { CommandError } from '@once/engine/internal';

const CODE = /^[A-Z][A-Z0-9_]*$/;

/** A refusal's fields as a once client reads them. */
export interface RefusalFields {
  readonly code: string;
  readonly message: string;
  /** What a NestJS RPC client would receive as the error (the body's `rpcError`). */
  readonly rpcError: unknown;
}

/**
 * What NestJS's `BaseRpcExceptionFilter` sends a client for `exception`: the
 * error object as the exception holds it, or `{ status: 'error', message }`
 * when it holds a string.
 */
export function rpcErrorOf(exception: RpcException): unknown {
  const error = exception.getError();
  return typeof error === 'object' && error !== null ? error : { status: 'error', message: error };
}

/**
 * The refusal for an error value meant for the client (an RpcException's, an
 * exception filter's output): its `code` when it is an UPPER_SNAKE string,
 * else `fallbackCode`; its `message` when it is a string, else its JSON; and
 * the value itself as `rpcError`, so a client can see exactly what NestJS TCP
 * would have shown it. Only what the value's author put in it is used.
 */
export function refusalFieldsOf(value: unknown, fallbackCode: string): RefusalFields {
  if (typeof value !== 'object' || value === null) {
    return { code: fallbackCode, message: String(value), rpcError: value };
  }
  const { code, message } = value as { code?: unknown; message?: unknown };
  return {
    code: typeof code === 'string' && CODE.test(code) ? code : fallbackCode,
    message: typeof message === 'string' ? message : jsonText(value),
    rpcError: value,
  };
}

function jsonText(value: object): string {
  const unwritable = 'an error value JSON cannot express';
  try {
    const json: string | undefined = JSON.stringify(value);
    return json ?? unwritable;
  } catch {
    return unwritable;
  }
}

/**
 * An RpcException thrown by a command's apply or `@Admit` step, as the
 * refusal it commits: the error object reaches the client (`rpcError`) as on
 * NestJS TCP. `cause` is the exception, for the exception filters.
 */
export class RpcExceptionRefusal extends CommandError {
  constructor(
    readonly exception: RpcException,
    fallbackCode: string,
  ) {
    const { code, message, rpcError } = refusalFieldsOf(rpcErrorOf(exception), fallbackCode);
    super(code, message, { rpcError, cause: exception });
    this.name = 'RpcExceptionRefusal';
  }
}

/** `error` as a command step throws it on: an RpcException becomes its refusal. */
export function asCommandError(error: unknown, fallbackCode: string): unknown {
  return error instanceof RpcException ? new RpcExceptionRefusal(error, fallbackCode) : error;
}
