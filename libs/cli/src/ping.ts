import { Command, type Frame, Operation, Status, randomClientId } from '@once/protocol';
import { FrameDecoder, encodeFrame } from '@once/protocol/internal';
import { type Socket, connect } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { CliError } from './cli-error';

/** Where and how to reach a running node. */
export interface NodeAddressOptions {
  readonly host: string;
  readonly port: number;
  /** PEM CA bundle: connect with TLS, trusting it. Absent: plain TCP. */
  readonly tlsCa?: Buffer;
  /** Give up after this many ms. Default 5000. */
  readonly timeoutMs?: number;
}

/** The PING reply body (PROTOCOL.md, "PING", plus the cluster keys of PROTOCOL-NOTES). */
export interface PingAnswer {
  readonly version: number;
  readonly commit: number;
  readonly ready: boolean;
  readonly node: string | null;
  readonly role: string;
  readonly leader: string | null;
}

/**
 * Sends one PING to a node and returns its answer. PING needs no session and
 * no credentials, which is why `once status` can ask a running node without
 * any protocol of its own.
 */
export function ping(options: NodeAddressOptions): Promise<PingAnswer> {
  return new Promise((resolve, reject) => {
    const timeoutMs = options.timeoutMs ?? 5000;
    const where = `${options.host}:${options.port}`;
    const socket: Socket = options.tlsCa
      ? connectTls({ host: options.host, port: options.port, ca: options.tlsCa })
      : connect({ host: options.host, port: options.port });
    const decoder = new FrameDecoder();
    const fail = (code: string, message: string): void => {
      socket.destroy();
      reject(new CliError(code, message));
    };
    socket.setTimeout(timeoutMs, () =>
      fail('NODE_UNREACHABLE', `no answer from ${where} within ${timeoutMs} ms`),
    );
    socket.on('error', (error) =>
      fail('NODE_UNREACHABLE', `cannot reach a node at ${where}: ${error.message}`),
    );
    socket.on('close', () =>
      fail('NODE_UNREACHABLE', `${where} closed the connection before answering`),
    );
    socket.once(options.tlsCa ? 'secureConnect' : 'connect', () => {
      socket.write(
        encodeFrame({
          command: Command.Request,
          operation: Operation.Ping,
          client: randomClientId(),
        }),
      );
    });
    socket.on('data', (chunk: Buffer) => {
      decoder.push(chunk);
      const result = decoder.next();
      if (!result) return;
      if (result.kind === 'error') {
        fail('BAD_ANSWER', `${where} does not speak the once protocol: ${result.message}`);
        return;
      }
      socket.removeAllListeners('close');
      socket.end();
      try {
        resolve(pingAnswerOf(result.frame));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

/** Reads a PING reply; the cluster keys default to a single node's when absent. */
export function pingAnswerOf(frame: Frame): PingAnswer {
  if (frame.header.status !== Number(Status.Ok)) {
    throw new CliError('BAD_ANSWER', `PING answered with status ${frame.header.status}`);
  }
  let body: Partial<PingAnswer>;
  try {
    body = JSON.parse(frame.body.toString('utf8')) as Partial<PingAnswer>;
  } catch {
    throw new CliError('BAD_ANSWER', 'the PING reply body is not JSON');
  }
  return {
    version: Number(body.version),
    commit: Number(body.commit),
    ready: body.ready === true,
    node: typeof body.node === 'string' ? body.node : null,
    role: typeof body.role === 'string' ? body.role : 'none',
    leader: typeof body.leader === 'string' ? body.leader : null,
  };
}
