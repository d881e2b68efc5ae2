import { type Socket } from 'node:net';
import { Command, FrameDecoder, Operation, encodeFrame } from '@once/protocol';
import { connectSocket } from './connect-socket';
import { sleep } from './sleep';

/** The body of a PING reply (PROTOCOL.md, "PING"). */
export interface PingReply {
  readonly version: number;
  readonly commit: number;
  readonly ready: boolean;
}

const PING_FRAME = encodeFrame({ command: Command.Request, operation: Operation.Ping });

/**
 * PINGs a once node over one connection until it answers `ready: true`,
 * every `intervalMs`: how the bench times a restart (spawn → first ready
 * PING) to within one interval.
 */
export async function pingUntilReady(
  host: string,
  port: number,
  intervalMs: number,
  timeoutMs: number,
): Promise<PingReply> {
  const deadlineMs = performance.now() + timeoutMs;
  const socket = await connectSocket(host, port);
  const decoder = new FrameDecoder();
  try {
    for (;;) {
      const reply = await ping(socket, decoder);
      if (reply.ready) return reply;
      if (performance.now() > deadlineMs) {
        throw new Error(`not ready within ${timeoutMs} ms (commit ${reply.commit})`);
      }
      await sleep(intervalMs);
    }
  } finally {
    socket.destroy();
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
