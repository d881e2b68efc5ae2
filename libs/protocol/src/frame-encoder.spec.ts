import fc from 'fast-check';
import { EMPTY_CHECKSUM, ZERO_CHECKSUM, checksum } from './checksum';
import { ZERO_CLIENT_ID, clientIdFromBigInt } from './client-id';
import { type Frame, frameFromBytes } from './frame';
import { FrameDecoder } from './frame-decoder';
import {
  encodeFrame,
  encodeReplyTo,
  sealFrame,
  type FrameFields,
  withRequestChecksum,
} from './frame-encoder';
import { decodeHeader } from './frame-header';
import { ProtocolError } from './protocol-error';
import {
  Command,
  EvictionReason,
  MAGIC,
  Offset,
  Operation,
  PROTOCOL_VERSION,
  Status,
} from './wire-constants';

const CLIENT = 'fedcba98765432100123456789abcdef';

function decodeOne(bytes: Buffer): Frame {
  const decoder = new FrameDecoder({ maxFrameBytes: 0xffff_ffff });
  decoder.push(bytes);
  const result = decoder.next();
  if (result?.kind !== 'frame') throw new Error(`did not decode: ${JSON.stringify(result)}`);
  expect(decoder.bufferedBytes).toBe(0);
  return result.frame;
}

const u64Number = fc.maxSafeNat();
const fieldsArbitrary: fc.Arbitrary<FrameFields> = fc.record(
  {
    command: fc.constantFrom(Command.Request, Command.Reply, Command.Eviction),
    operation: fc.integer({ min: 0, max: 0xff }),
    status: fc.integer({ min: 0, max: 0xffff }),
    client: fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }).map(clientIdFromBigInt),
    session: u64Number,
    request: u64Number,
    resumeToken: fc.uint8Array({ minLength: 16, maxLength: 16 }),
    op: u64Number,
    commit: u64Number,
    timestamp: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
    watermark: u64Number,
  },
  { requiredKeys: ['command', 'operation'] },
);
const bodyArbitrary = fc.option(
  fc.oneof(fc.uint8Array({ maxLength: 3000 }), fc.string({ unit: 'binary', maxLength: 500 })),
  { nil: undefined },
);

describe('encodeFrame', () => {
  it('round-trips any fields and body through the decoder', () => {
    fc.assert(
      fc.property(fieldsArbitrary, bodyArbitrary, (fields, body) => {
        const encoded = encodeFrame(fields, body);
        const { header, raw, body: decodedBody } = decodeOne(encoded);
        const bodyBytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : (body ?? []);

        expect(raw.equals(encoded)).toBe(true);
        expect(decodedBody.equals(Buffer.from(bodyBytes))).toBe(true);
        expect(header.size).toBe(128 + bodyBytes.length);
        expect(header.magic).toBe(MAGIC);
        expect(header.version).toBe(PROTOCOL_VERSION);
        expect(header.reserved).toBe(0);
        expect(header.command).toBe(fields.command);
        expect(header.operation).toBe(fields.operation);
        expect(header.status).toBe(fields.status ?? 0);
        expect(header.client).toBe(fields.client ?? ZERO_CLIENT_ID);
        expect(header.session).toBe(fields.session ?? 0);
        expect(header.request).toBe(fields.request ?? 0);
        expect(header.resumeToken).toEqual(Buffer.from(fields.resumeToken ?? ZERO_CHECKSUM));
        expect(header.op).toBe(fields.op ?? 0);
        expect(header.commit).toBe(fields.commit ?? 0);
        expect(header.timestamp).toBe(fields.timestamp ?? 0n);
        expect(header.watermark).toBe(fields.watermark ?? 0);
        expect(header.checksumBody).toEqual(checksum(Buffer.from(bodyBytes)));
        expect(header.checksum).toEqual(checksum(encoded.subarray(16, 128)));
      }),
      { numRuns: 300 },
    );
  });

  it.each([0n, 1n, 0xffff_ffffn, 1n << 32n, (1n << 63n) + 7n, (1n << 64n) - 1n])(
    'given timestamp %s, when encoded and decoded, then it reads back exactly',
    (timestamp) => {
      const encoded = encodeFrame({ command: Command.Reply, operation: 3, timestamp });
      expect(decodeHeader(encoded).timestamp).toBe(timestamp);
      expect(encoded.readBigUInt64LE(112)).toBe(timestamp);
    },
  );

  it.each<[string, string | Uint8Array | undefined]>([
    ['a string body', '{"ok":true,"result":{"balance":12}}'],
    ['a byte body', Buffer.from('héllo')],
    ['no body', undefined],
  ])(
    'given %s, when allocated exact, then the bytes equal the pooled frame and own their buffer',
    (_row, body) => {
      const fields = {
        command: Command.Reply,
        operation: 3,
        status: 0,
        client: clientIdFromBigInt(0x1234n),
        session: 5,
        request: 9,
        op: 77,
        commit: 77,
        timestamp: 1_700_000_000_000_000_000n,
        watermark: 9,
      } as const;
      const exact = encodeFrame(fields, body, 'exact');
      expect(exact).toEqual(encodeFrame(fields, body));
      expect(exact.byteOffset).toBe(0);
      expect(exact.byteLength).toBe(exact.buffer.byteLength);
    },
  );

  it('writes a string body as UTF-8 and counts its bytes, not its characters', () => {
    const frame = encodeFrame({ command: Command.Request, operation: Operation.Command }, 'é😀');
    expect(frame.length).toBe(128 + 6);
    expect(frame.subarray(128).toString('utf8')).toBe('é😀');
  });

  it('gives a body-less frame the empty checksum and size 128', () => {
    const frame = encodeFrame({ command: Command.Request, operation: Operation.Ping });
    expect(frame.length).toBe(128);
    expect(decodeHeader(frame).size).toBe(128);
    expect(decodeHeader(frame).checksumBody).toEqual(EMPTY_CHECKSUM);
    expect(encodeFrame({ command: Command.Request, operation: Operation.Ping }, '')).toEqual(frame);
  });

  it.each<[string, Partial<FrameFields>, string]>([
    ['command above u8', { command: 256 as Command }, 'FIELD_OUT_OF_RANGE'],
    ['operation below 0', { operation: -1 }, 'FIELD_OUT_OF_RANGE'],
    ['fractional operation', { operation: 1.5 }, 'FIELD_OUT_OF_RANGE'],
    ['status above u16', { status: 0x10000 }, 'FIELD_OUT_OF_RANGE'],
    ['session at 2^53', { session: 2 ** 53 }, 'FIELD_OUT_OF_RANGE'],
    ['negative request', { request: -1 }, 'FIELD_OUT_OF_RANGE'],
    ['NaN watermark', { watermark: NaN }, 'FIELD_OUT_OF_RANGE'],
    ['negative timestamp', { timestamp: -1n }, 'FIELD_OUT_OF_RANGE'],
    ['timestamp at 2^64', { timestamp: 1n << 64n }, 'FIELD_OUT_OF_RANGE'],
    ['upper-case client', { client: CLIENT.toUpperCase() }, 'FIELD_OUT_OF_RANGE'],
    ['short client', { client: 'abc' }, 'FIELD_OUT_OF_RANGE'],
    ['15-byte resume token', { resumeToken: new Uint8Array(15) }, 'INVALID_RESUME_TOKEN'],
  ])('refuses %s', (_what, patch, code) => {
    const fields: FrameFields = { command: Command.Request, operation: Operation.Ping, ...patch };
    expect(() => encodeFrame(fields)).toThrow(ProtocolError);
    expect(() => encodeFrame(fields)).toThrow(expect.objectContaining({ code }));
  });

  it('refuses a body the u32 size field cannot describe, before allocating', () => {
    const hugeBody = { length: 0xffff_ffff - 127 } as unknown as Uint8Array;
    expect(() =>
      encodeFrame({ command: Command.Request, operation: Operation.Command }, hugeBody),
    ).toThrow(expect.objectContaining({ code: 'FRAME_TOO_LARGE' }));
  });
});

/** A request frame whose session and request are arbitrary u64s, written as raw bytes. */
function requestWithRawCounters(session: bigint, request: bigint, client = CLIENT): Frame {
  const bytes = encodeFrame(
    { command: Command.Request, operation: Operation.Command, client },
    '{"pattern":"p"}',
  );
  bytes.writeBigUInt64LE(session, Offset.session);
  bytes.writeBigUInt64LE(request, Offset.request);
  return decodeOne(sealFrame(bytes));
}

describe('encodeReplyTo', () => {
  const u64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });

  it('echoes operation, client, session and request as raw bytes, even above 2^53', () => {
    fc.assert(
      fc.property(
        u64,
        u64,
        fc.bigInt({ min: 1n, max: (1n << 128n) - 1n }).map(clientIdFromBigInt),
        fc.constantFrom(Command.Reply, Command.Eviction),
        (session, request, client, command) => {
          const requestFrame = requestWithRawCounters(session, request, client);
          const reply = decodeOne(
            encodeReplyTo(requestFrame, { command, status: 2, commit: 9, watermark: 4 }, 'x'),
          );
          expect(reply.raw.readBigUInt64LE(Offset.session)).toBe(session);
          expect(reply.raw.readBigUInt64LE(Offset.request)).toBe(request);
          expect(reply.raw.subarray(Offset.client, Offset.resumeToken)).toEqual(
            requestFrame.raw.subarray(Offset.client, Offset.resumeToken),
          );
          expect(reply.header.operation).toBe(Operation.Command);
          expect(reply.header.client).toBe(client);
          expect(reply.header.command).toBe(command);
          expect(reply.header.status).toBe(2);
          expect(reply.header.commit).toBe(9);
          expect(reply.header.watermark).toBe(4);
          expect(reply.body.toString()).toBe('x');
        },
      ),
      { numRuns: 200 },
    );
  });

  it('echoes 2^53 + 1 exactly although it reads rounded as a number', () => {
    const above = (1n << 53n) + 1n;
    const request = requestWithRawCounters(above, above);
    expect(request.header.session).toBe(2 ** 53); // rounded
    const reply = encodeReplyTo(request, { command: Command.Reply, status: Status.EpochAhead });
    expect(reply.readBigUInt64LE(Offset.session)).toBe(above);
    expect(reply.readBigUInt64LE(Offset.request)).toBe(above);
  });

  it("carries the request's checksum_body on a REPLY and zeros on an EVICTION", () => {
    const request = requestWithRawCounters(42n, 8n);
    const reply = decodeHeader(
      encodeReplyTo(request, { command: Command.Reply, status: Status.Ok }),
    );
    expect(reply.resumeToken).toEqual(request.header.checksumBody);
    const eviction = decodeHeader(
      encodeReplyTo(request, { command: Command.Eviction, status: EvictionReason.NoSession }),
    );
    expect(eviction.resumeToken).toEqual(ZERO_CHECKSUM);
  });

  it('answers under another epoch when given one (a REGISTER reply)', () => {
    const register = decodeOne(
      encodeFrame(
        { command: Command.Request, operation: Operation.Register, client: CLIENT },
        '{"username":"u","password":"p"}',
      ),
    );
    const reply = decodeHeader(
      encodeReplyTo(register, {
        command: Command.Reply,
        status: Status.Ok,
        session: 17,
        op: 17,
        commit: 17,
        timestamp: 5n,
      }),
    );
    expect(reply.session).toBe(17);
    expect(reply.request).toBe(0);
    expect(reply.client).toBe(CLIENT);
    expect(reply.operation).toBe(Operation.Register);
    expect(reply.timestamp).toBe(5n);
  });

  it('refuses to answer with a REQUEST', () => {
    const request = requestWithRawCounters(1n, 1n);
    expect(() =>
      encodeReplyTo(request, { command: Command.Request as Command.Reply, status: 0 }),
    ).toThrow(expect.objectContaining({ code: 'FIELD_OUT_OF_RANGE' }));
  });
});

describe('withRequestChecksum', () => {
  const reply = encodeFrame(
    {
      command: Command.Reply,
      operation: Operation.Register,
      status: Status.Ok,
      client: CLIENT,
      session: 7,
      resumeToken: ZERO_CHECKSUM,
      op: 7,
      commit: 7,
      timestamp: 123n,
      watermark: 3,
    },
    '{"epoch":7}',
  );
  const requestChecksum = checksum(Buffer.from('{"username":"u","password":"p"}'));

  it('writes request_checksum and a new header checksum, leaving every other byte and the original as they were', () => {
    const original = Buffer.from(reply);
    const patched = withRequestChecksum(reply, requestChecksum);

    const frame = decodeOne(patched);
    expect(frame.header.resumeToken).toEqual(requestChecksum);
    expect(patched.subarray(Offset.checksumBody, Offset.resumeToken)).toEqual(
      reply.subarray(Offset.checksumBody, Offset.resumeToken),
    );
    expect(patched.subarray(Offset.resumeToken + 16)).toEqual(
      reply.subarray(Offset.resumeToken + 16),
    );
    expect(reply).toEqual(original);
  });

  it('refuses a checksum that is not 16 bytes', () => {
    expect(() => withRequestChecksum(reply, Buffer.alloc(15))).toThrow(ProtocolError);
  });
});

describe('decodeHeader and frameFromBytes', () => {
  const frame = encodeFrame(
    { command: Command.Request, operation: Operation.Command, client: CLIENT, session: 3 },
    '{"pattern":"p"}',
  );

  it('reads a header at an offset', () => {
    const padded = Buffer.concat([Buffer.alloc(7, 0xee), frame]);
    expect(decodeHeader(padded, 7)).toEqual(decodeHeader(frame));
    expect(decodeHeader(padded, 7).session).toBe(3);
  });

  it('refuses fewer than 128 bytes', () => {
    expect(() => decodeHeader(frame.subarray(0, 127))).toThrow(
      expect.objectContaining({ code: 'SHORT_HEADER' }),
    );
    expect(() => decodeHeader(frame, frame.length - 127)).toThrow(ProtocolError);
  });

  it('wraps trusted bytes and refuses bytes whose length is not the size field', () => {
    const wrapped = frameFromBytes(frame);
    expect(wrapped.raw).toBe(frame);
    expect(wrapped.body.toString()).toBe('{"pattern":"p"}');
    expect(() => frameFromBytes(frame.subarray(0, frame.length - 1))).toThrow(
      expect.objectContaining({ code: 'SIZE_MISMATCH' }),
    );
  });
});
