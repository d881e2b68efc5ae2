import { type Socket } from 'node:net';
import { Command, Operation } from '@once/protocol';
import { FrameDecoder, encodeFrame } from '@once/protocol/internal';
import { connectSocket } from './connect-socket';
import { sleep } from './sleep';

/** The body of a PING reply (PROTOCOL.md, "PING"); a cluster node adds its role. */
export interface PingReply {
  readonly version: number;
  readonly commit: number;
  readonly ready: boolean;
  /** Cluster mode: this node's id. */
  readonly node?: string | null;
  /** Cluster mode: whether this node serves writes, follows, or neither yet. */
  readonly role?: 'leader' | 'follower' | 'none';
  /** Cluster mode: the leader's advertised `host:port`, when known. */
  readonly leader?: string | null;
}

const PING_FRAME = encodeFrame({ command: Command.Request, operation: Operation.Ping });

/**
 * PINGs a once node over one connection until it answers `ready: true`,
 * every `intervalMs`: how the bench times a restart (spawn → first ready
 * PING) to within one interval.
 */
export function pingUntilReady(
  host: string,
  port: number,
  intervalMs: number,
  timeoutMs: number,
): Promise<PingReply> {
  return pingUntil(host, port, intervalMs, timeoutMs, isReady);
}

/** PING's own readiness: the node serves. */
export function isReady(reply: PingReply): boolean {
  return reply.ready;
}

/**
 * PINGs a once node over one connection every `intervalMs` until `done`
 * holds for its answer, which it resolves with. {@link pingUntilReady} with
 * any condition (a restarted cluster node: ready and caught up).
 */
export async function pingUntil(
  host: string,
  port: number,
  intervalMs: number,
  timeoutMs: number,
  done: (reply: PingReply) => boolean,
): Promise<PingReply> {
  const deadlineMs = performance.now() + timeoutMs;
  const socket = await connectSocket(host, port);
  const decoder = new FrameDecoder();
  try {
    for (;;) {
      const reply = await ping(socket, decoder);
      if (done(reply)) return reply;
      if (performance.now() > deadlineMs) {
        throw new Error(
          `no PING answer as awaited within ${timeoutMs} ms (last: ${JSON.stringify(reply)})`,
        );
      }
      await sleep(intervalMs);
    }
  } finally {
    socket.destroy();
  }
}

/** One PING on a new connection; undefined when the node does not answer within `timeoutMs`. */
export async function pingOnce(
  host: string,
  port: number,
  timeoutMs: number,
): Promise<PingReply | undefined> {
  let socket: Socket | undefined;
  let finished = false;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
  });
  const answer = (async () => {
    socket = await connectSocket(host, port);
    if (finished) socket.destroy();
    return ping(socket, new FrameDecoder());
  })().catch(() => undefined);
  try {
    return await Promise.race([answer, late]);
  } finally {
    finished = true;
    clearTimeout(timer);
    socket?.destroy();
  }
}

function ping(socket: Socket, decoder: FrameDecoder): Promise<PingReply> {
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      decoder.push(chunk);
      const result = decoder.next();
      if (!result) return;
      cleanUp();
      if (result.kind === 'error') reject(new Error(`bad PING reply: ${result.message}`));
      else resolve(JSON.parse(result.frame.body.toString('utf8')) as PingReply);
    };
    const onClose = () => {
      cleanUp();
      reject(new Error('the node closed the connection'));
    };
    const cleanUp = () => {
      socket.off('data', onData);
      socket.off('close', onClose);
    };
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.write(PING_FRAME);
  });
}
