import { ConnectError, type NodeAnswer, OnceError } from '@once/sdk';

/**
 * The error a `send()` or `emit()` of OnceClientProxy fails with when no
 * session could be bound (the SDK's {@link ConnectError}, kept as `cause`).
 *
 * NestJS's TCP client fails with the socket's own error, and applications
 * branch on its `code` (NestJS's own integration app maps
 * `code === 'ECONNREFUSED'` to a 408 and anything else to a 500), so `code`
 * here is the socket's: `ECONNREFUSED`, `ECONNRESET`, `ETIMEDOUT`, a TLS
 * code, ..., with `errno`, `syscall`, `address` and `port` copied from it as
 * Node's error has them. When no socket error is behind the failure (no
 * session bound in time, a node that kept answering NOT_READY), `code` is
 * once's. Once's code is always `onceCode`: `CONNECT_FAILED`.
 */
export class ProxyConnectError extends Error {
  override readonly name = 'ProxyConnectError';
  /** The socket error's code (`ECONNREFUSED`, ...), else `CONNECT_FAILED`. */
  readonly code: string;
  /** Once's code of the failure, whatever the socket said. */
  readonly onceCode = 'CONNECT_FAILED';
  readonly errno: number | undefined;
  readonly syscall: string | undefined;
  readonly address: string | undefined;
  readonly port: number | undefined;
  /** The last answer a node gave while the client tried (see {@link ConnectError}). */
  readonly lastAnswer: NodeAnswer | undefined;

  constructor(error: ConnectError) {
    super(error.message, { cause: error });
    const socket = socketErrorOf(error);
    this.code = socket?.code ?? error.code;
    this.errno = socket?.errno;
    this.syscall = socket?.syscall;
    this.address = socket?.address;
    this.port = socket?.port;
    this.lastAnswer = error.lastAnswer;
  }
}

/** What Node's system and TLS errors carry besides a message. */
interface SocketError {
  readonly code: string;
  readonly errno?: number;
  readonly syscall?: string;
  readonly address?: string;
  readonly port?: number;
}

/**
 * The first error along `cause` that is not once's and has a string `code`:
 * the socket's. Not `instanceof Error`: Node's own errors may come from
 * another realm (a VM context, a test runner's sandbox).
 */
function socketErrorOf(error: Error): SocketError | undefined {
  const seen = new Set<unknown>();
  let at: unknown = error.cause;
  while (typeof at === 'object' && at !== null && !seen.has(at)) {
    seen.add(at);
    const { code, cause } = at as { code?: unknown; cause?: unknown };
    if (!(at instanceof OnceError) && typeof code === 'string') return at as SocketError;
    at = cause;
  }
  return undefined;
}

/** One ProxyConnectError per ConnectError: the calls it failed and the 'error' listeners get the same object. */
const made = new WeakMap<ConnectError, ProxyConnectError>();

/** `error` as OnceClientProxy's caller sees it: a ConnectError becomes a {@link ProxyConnectError}. */
export function proxyConnectErrorOf(error: unknown): unknown {
  if (!(error instanceof ConnectError)) return error;
  let proxied = made.get(error);
  if (!proxied) {
    proxied = new ProxyConnectError(error);
    made.set(error, proxied);
  }
  return proxied;
}
