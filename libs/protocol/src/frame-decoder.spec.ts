import fc from 'fast-check';
import { checksumInto } from './checksum';
import { type Frame } from './frame';
import { type DecodeResult, FrameDecoder } from './frame-decoder';
import { encodeFrame, sealFrame } from './frame-encoder';
import { ProtocolError } from './protocol-error';
import { Command, DEFAULT_MAX_FRAME_BYTES, Offset, Operation, Status } from './wire-constants';

const CLIENT = '0123456789abcdef0123456789abcdef';

function commandFrame(request: number, body: string | Uint8Array): Buffer {
  return encodeFrame(
    {
      command: Command.Request,
      operation: Operation.Command,
      client: CLIENT,
      session: 42,
      request,
    },
    body,
  );
}

/** A mixed stream: empty bodies, small ones, and bodies larger than a typical chunk. */
const STREAM_FRAMES: readonly Buffer[] = [
  commandFrame(1, '{"pattern":"a","data":1}'),
  encodeFrame({ command: Command.Request, operation: Operation.Ping }),
  commandFrame(2, Buffer.alloc(5000, 0x61)),
  encodeFrame({ command: Command.Reply, operation: Operation.Command, status: Status.Ok }, '{}'),
  commandFrame(3, '{"pattern":"é€😀","data":null}'),
  commandFrame(4, Buffer.alloc(70_000, 0x7a)),
];
const STREAM = Buffer.concat(STREAM_FRAMES);

/** A copy of `frame` changed by `patch`, with both checksums recomputed. */
function resealed(frame: Buffer, patch: (copy: Buffer) => void): Buffer {
  const copy = Buffer.from(frame);
  patch(copy);
  return sealFrame(copy);
}

/** `frame` with only its header checksum recomputed: checksum_body is left as it is. */
function withHeaderChecksum(frame: Buffer): Buffer {
  const copy = Buffer.from(frame);
  checksumInto(copy.subarray(Offset.checksumBody, 128), copy, Offset.checksum);
  return copy;
}

function flipped(frame: Buffer, index: number): Buffer {
  const copy = Buffer.from(frame);
  copy[index] ^= 0x01;
  return copy;
}

/** Every result the decoder yields until it needs more bytes. */
function drain(decoder: FrameDecoder): DecodeResult[] {
  const results: DecodeResult[] = [];
  for (let result = decoder.next(); result !== undefined; result = decoder.next()) {
    results.push(result);
  }
  return results;
}

function decodeChunks(chunks: readonly Buffer[]): DecodeResult[] {
  const decoder = new FrameDecoder();
  const results: DecodeResult[] = [];
  for (const chunk of chunks) {
    decoder.push(chunk);
    results.push(...drain(decoder));
  }
  expect(decoder.bufferedBytes).toBe(0);
  expect(decoder.hasPartialFrame).toBe(false);
  return results;
}

function framesOf(results: readonly DecodeResult[]): Frame[] {
  return results.map((result) => {
    if (result.kind !== 'frame') throw new Error(`unexpected ${result.message}`);
    return result.frame;
  });
}

function expectStreamFrames(results: readonly DecodeResult[]): void {
  const frames = framesOf(results);
  expect(frames.map((frame) => frame.raw.toString('hex'))).toEqual(
    STREAM_FRAMES.map((frame) => frame.toString('hex')),
  );
  for (const frame of frames) {
    expect(frame.header.size).toBe(frame.raw.length);
    expect(frame.body.equals(frame.raw.subarray(128))).toBe(true);
  }
}

/** Decodes `bytes` pushed in one chunk, expecting exactly one error. */
function errorOf(bytes: Buffer, maxFrameBytes?: number): DecodeResult {
  const decoder = new FrameDecoder({ maxFrameBytes });
  decoder.push(bytes);
  const results = drain(decoder);
  expect(results).toHaveLength(1);
  return results[0];
}

describe('FrameDecoder checks', () => {
  const good = commandFrame(7, '{"pattern":"ledger.deposit","data":{"amount":5}}');

  it('accepts a good frame', () => {
    const decoder = new FrameDecoder();
    decoder.push(good);
    const [frame] = framesOf(drain(decoder));
    expect(frame.raw.equals(good)).toBe(true);
  });

  it('refuses a bad magic with BAD_FRAME as soon as bytes 32..35 are in', () => {
    const bad = resealed(good, (copy) => (copy[Offset.magic] = 0x50));
    expect(errorOf(bad)).toEqual({ kind: 'error', status: Status.BadFrame, message: 'bad magic' });

    const decoder = new FrameDecoder();
    decoder.push(bad.subarray(0, 35));
    expect(decoder.next()).toBeUndefined();
    decoder.push(bad.subarray(35, 36));
    expect(decoder.next()).toMatchObject({ kind: 'error', status: Status.BadFrame });
  });

  it('refuses version 2 with VERSION_UNSUPPORTED as soon as bytes 36..37 are in', () => {
    const v2 = resealed(good, (copy) => copy.writeUInt16LE(2, Offset.version));
    expect(errorOf(v2)).toEqual({
      kind: 'error',
      status: Status.VersionUnsupported,
      message: 'version 2 unsupported (this node serves 1)',
    });

    const decoder = new FrameDecoder();
    decoder.push(v2.subarray(0, 37));
    expect(decoder.next()).toBeUndefined();
    decoder.push(v2.subarray(37, 38));
    expect(decoder.next()).toMatchObject({ kind: 'error', status: Status.VersionUnsupported });
  });

  it('checks magic before version', () => {
    const both = resealed(good, (copy) => {
      copy[Offset.magic + 3] = 0;
      copy.writeUInt16LE(2, Offset.version);
    });
    expect(errorOf(both)).toMatchObject({ status: Status.BadFrame, message: 'bad magic' });
  });

  it('refuses size 127 with BAD_FRAME', () => {
    const small = resealed(good, (copy) => copy.writeUInt32LE(127, Offset.size));
    expect(errorOf(small)).toEqual({
      kind: 'error',
      status: Status.BadFrame,
      message: 'size 127 below 128',
    });
  });

  it('refuses a size above max_frame after 44 bytes, before the body is buffered', () => {
    const header = resealed(good.subarray(0, 128), (copy) =>
      copy.writeUInt32LE(2_000_000, Offset.size),
    );
    const decoder = new FrameDecoder();
    decoder.push(header.subarray(0, 43));
    expect(decoder.next()).toBeUndefined();
    expect(decoder.hasPartialFrame).toBe(true);
    decoder.push(header.subarray(43, 44));
    expect(decoder.next()).toEqual({
      kind: 'error',
      status: Status.BadFrame,
      message: `size 2000000 above max_frame ${DEFAULT_MAX_FRAME_BYTES}`,
    });
    expect(decoder.bufferedBytes).toBe(0);
  });

  it('honours maxFrameBytes', () => {
    const body = Buffer.alloc(300 - 128, 0x20);
    const frame = commandFrame(1, body);
    expect(frame.length).toBe(300);
    const decoder = new FrameDecoder({ maxFrameBytes: 299 });
    decoder.push(frame.subarray(0, 44));
    expect(decoder.next()).toEqual({
      kind: 'error',
      status: Status.BadFrame,
      message: 'size 300 above max_frame 299',
    });

    const exact = new FrameDecoder({ maxFrameBytes: 300 });
    exact.push(frame);
    expect(exact.next()).toMatchObject({ kind: 'frame' });
  });

  it('checks size before the header checksum', () => {
    const bad = flipped(good, Offset.size + 3); // size becomes huge, checksum now wrong too
    expect(errorOf(bad)).toMatchObject({ status: Status.BadFrame, message: /^size \d+ above/ });
  });

  it.each([
    ['the checksum itself', Offset.checksum + 5],
    ['checksum_body (covered by the header checksum)', Offset.checksumBody],
    ['the client', Offset.client + 1],
    ['the watermark', Offset.watermark + 7],
  ])('refuses a flipped bit in %s with "header checksum mismatch"', (_what, index) => {
    expect(errorOf(flipped(good, index))).toEqual({
      kind: 'error',
      status: Status.BadFrame,
      message: 'header checksum mismatch',
    });
  });

  it('refuses a bad header checksum once 128 bytes are in, without waiting for the body', () => {
    const bad = flipped(good, Offset.request);
    const decoder = new FrameDecoder();
    decoder.push(bad.subarray(0, 127));
    expect(decoder.next()).toBeUndefined();
    decoder.push(bad.subarray(127, 128));
    expect(decoder.next()).toMatchObject({ message: 'header checksum mismatch' });
  });

  it('refuses a flipped body bit with "body checksum mismatch" once the whole frame is in', () => {
    const bad = flipped(good, good.length - 1);
    const decoder = new FrameDecoder();
    decoder.push(bad.subarray(0, bad.length - 1));
    expect(decoder.next()).toBeUndefined();
    decoder.push(bad.subarray(bad.length - 1));
    expect(decoder.next()).toEqual({
      kind: 'error',
      status: Status.BadFrame,
      message: 'body checksum mismatch',
    });
  });

  it.each([
    ['a body-less frame', encodeFrame({ command: Command.Request, operation: Operation.Ping })],
    ['a frame with a body', good],
  ])('refuses %s whose checksum_body alone is wrong with "body checksum mismatch"', (_, frame) => {
    const bad = withHeaderChecksum(flipped(frame, Offset.checksumBody + 9));
    expect(errorOf(bad)).toMatchObject({
      status: Status.BadFrame,
      message: 'body checksum mismatch',
    });
  });

  it('refuses 40 bytes of garbage with BAD_FRAME without waiting for 128', () => {
    const garbage = Buffer.from('GET / HTTP/1.1\r\nHost: example.com\r\n\r\n\0\0\0');
    expect(garbage.length).toBe(40);
    expect(errorOf(garbage)).toEqual({
      kind: 'error',
      status: Status.BadFrame,
      message: 'bad magic',
    });
  });

  it('is poisoned after the first error', () => {
    const decoder = new FrameDecoder();
    decoder.push(Buffer.concat([flipped(good, 0), good]));
    expect(decoder.next()).toMatchObject({ kind: 'error' });
    expect(decoder.next()).toBeUndefined();
    expect(decoder.bufferedBytes).toBe(0);
    expect(decoder.hasPartialFrame).toBe(false);
    decoder.push(good);
    expect(decoder.bufferedBytes).toBe(0);
    expect(decoder.next()).toBeUndefined();
    expect(decoder.hasPartialFrame).toBe(false);
  });

  it('returns the good frames before the first bad one, then the error, then nothing', () => {
    const decoder = new FrameDecoder();
    decoder.push(Buffer.concat([good, good, flipped(good, good.length - 1), good]));
    const results = drain(decoder);
    expect(results.map((result) => result.kind)).toEqual(['frame', 'frame', 'error']);
  });

  it('rejects a maxFrameBytes below the header size', () => {
    expect(() => new FrameDecoder({ maxFrameBytes: 127 })).toThrow(ProtocolError);
    expect(() => new FrameDecoder({ maxFrameBytes: 1500.5 })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION' }),
    );
  });
});

describe('FrameDecoder streaming', () => {
  it('decodes the stream pushed in one chunk, as zero-copy views of that chunk', () => {
    const chunk = Buffer.from(STREAM);
    const results = decodeChunks([chunk]);
    expectStreamFrames(results);
    let offset = 0;
    for (const frame of framesOf(results)) {
      expect(frame.raw.buffer).toBe(chunk.buffer);
      expect(frame.raw.byteOffset).toBe(chunk.byteOffset + offset);
      offset += frame.raw.length;
    }
  });

  it('decodes the stream pushed byte by byte', () => {
    const chunks = Array.from({ length: STREAM.length }, (_, i) => STREAM.subarray(i, i + 1));
    expectStreamFrames(decodeChunks(chunks));
  });

  it('decodes the stream pushed byte by byte before any next() call', () => {
    const decoder = new FrameDecoder();
    for (let i = 0; i < STREAM.length; i++) decoder.push(STREAM.subarray(i, i + 1));
    expect(decoder.bufferedBytes).toBe(STREAM.length);
    expectStreamFrames(drain(decoder));
    expect(decoder.bufferedBytes).toBe(0);
  });

  it('decodes the stream split at any boundaries', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: STREAM.length - 1 }), { maxLength: 40 }),
        fc.boolean(),
        (cuts, drainEachPush) => {
          const bounds = [0, ...cuts.sort((a, b) => a - b), STREAM.length];
          const chunks = bounds.slice(1).map((end, i) => STREAM.subarray(bounds[i], end));
          if (drainEachPush) {
            expectStreamFrames(decodeChunks(chunks));
          } else {
            const decoder = new FrameDecoder();
            for (const chunk of chunks) decoder.push(chunk);
            expectStreamFrames(drain(decoder));
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('copies a frame that spans chunks, so later changes to the chunks do not reach it', () => {
    const frame = STREAM_FRAMES[0];
    const first = Buffer.from(frame.subarray(0, 60));
    const second = Buffer.from(frame.subarray(60));
    const decoder = new FrameDecoder();
    decoder.push(first);
    decoder.push(second);
    const [decoded] = framesOf(drain(decoder));
    first.fill(0);
    second.fill(0);
    expect(decoded.raw.equals(frame)).toBe(true);
  });

  it('never overwrites a returned frame while decoding later ones', () => {
    const decoder = new FrameDecoder();
    const kept: Frame[] = [];
    for (let i = 0; i < STREAM.length; i += 97) {
      decoder.push(STREAM.subarray(i, i + 97));
      kept.push(...framesOf(drain(decoder)));
    }
    expect(kept.map((frame) => frame.raw.toString('hex'))).toEqual(
      STREAM_FRAMES.map((frame) => frame.toString('hex')),
    );
  });

  it('tracks bufferedBytes and hasPartialFrame', () => {
    const [a, b] = STREAM_FRAMES;
    const decoder = new FrameDecoder();
    expect(decoder.bufferedBytes).toBe(0);
    expect(decoder.hasPartialFrame).toBe(false);

    decoder.push(a.subarray(0, 10));
    expect(decoder.bufferedBytes).toBe(10);
    expect(decoder.hasPartialFrame).toBe(true);

    decoder.push(a.subarray(10, a.length - 1));
    expect(decoder.hasPartialFrame).toBe(true); // size known from the peeked header
    expect(decoder.next()).toBeUndefined();
    expect(decoder.hasPartialFrame).toBe(true); // size known from the checks

    decoder.push(a.subarray(a.length - 1));
    expect(decoder.bufferedBytes).toBe(a.length);
    expect(decoder.hasPartialFrame).toBe(false); // a whole frame waits to be taken

    decoder.push(b.subarray(0, 50));
    expect(decoder.next()).toMatchObject({ kind: 'frame' });
    expect(decoder.bufferedBytes).toBe(50);
    expect(decoder.hasPartialFrame).toBe(true);
    expect(decoder.next()).toBeUndefined();

    decoder.push(b.subarray(50));
    expect(decoder.next()).toMatchObject({ kind: 'frame' });
    expect(decoder.bufferedBytes).toBe(0);
    expect(decoder.hasPartialFrame).toBe(false);
  });

  it('ignores empty chunks', () => {
    const decoder = new FrameDecoder();
    decoder.push(Buffer.alloc(0));
    expect(decoder.bufferedBytes).toBe(0);
    expect(decoder.next()).toBeUndefined();
    expect(decoder.hasPartialFrame).toBe(false);
  });
});
