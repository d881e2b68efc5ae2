import { connect, type Socket } from 'node:net';
import { type Frame } from '@once/protocol';
import { FrameDecoder } from '@once/protocol/internal';

/** What one hostile connection sent and got back. */
export interface FuzzTranscript {
  /** Every byte the node sent, in order. */
  readonly received: Buffer;
  /** True when the node closed the connection (as opposed to the test, at the end). */
  readonly closedByNode: boolean;
}

/**
 * Connects to 127.0.0.1:`port`, writes `chunks` one by one (waiting
 * `delaysMs[i]` before chunk i, so that several such connections interleave),
 * then collects what the node sends until it closes the connection or stays
 * quiet for `quietMs`. Unlike RawClient it keeps the raw bytes, so the test
 * can check that everything the node sent is a well-formed frame.
 */
export async function runFuzzConnection(
  port: number,
  chunks: readonly Buffer[],
  delaysMs: readonly number[],
  quietMs: number,
): Promise<FuzzTranscript> {
  const socket = await new Promise<Socket>((resolve, reject) => {
    const opened = connect({ port, host: '127.0.0.1' });
    opened.once('connect', () => resolve(opened));
    opened.once('error', reject);
  });
  socket.setNoDelay(true);
  const received: Buffer[] = [];
  let closedByNode = false;
  let closingByTest = false;
  let lastEvent = Date.now();
  socket.on('data', (chunk: Buffer) => {
    received.push(chunk);
    lastEvent = Date.now();
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      if (!closingByTest) closedByNode = true;
      resolve();
    }),
  );
  try {
    for (const [index, chunk] of chunks.entries()) {
      const delay = delaysMs[index] ?? 0;
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      if (socket.destroyed || closedByNode) break;
      socket.write(chunk);
      lastEvent = Date.now();
    }
    // Until the node closes, or nothing arrived for quietMs.
    while (!closedByNode) {
      const idleFor = Date.now() - lastEvent;
      if (idleFor >= quietMs) break;
      await Promise.race([
        closed,
        new Promise((resolve) => setTimeout(resolve, quietMs - idleFor)),
      ]);
    }
  } finally {
    closingByTest = true;
    socket.destroy();
  }
  return { received: Buffer.concat(received), closedByNode };
}

/**
 * Splits `bytes` into frames with a strict decoder. Throws if the bytes are
 * not a sequence of complete, well-formed frames (magic, version, size,
 * both checksums), which a node must never send.
 */
export function decodeAll(bytes: Buffer): Frame[] {
  const decoder = new FrameDecoder({ maxFrameBytes: 64 * 1024 * 1024 });
  decoder.push(bytes);
  const frames: Frame[] = [];
  for (let result = decoder.next(); result; result = decoder.next()) {
    if (result.kind === 'error') {
      throw new Error(`the node sent bytes that are not a frame: ${result.message}`);
    }
    frames.push(result.frame);
  }
  if (decoder.bufferedBytes !== 0) {
    throw new Error(`the node sent ${decoder.bufferedBytes} trailing bytes that are not a frame`);
  }
  return frames;
}
