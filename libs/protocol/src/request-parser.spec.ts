import fc from 'fast-check';
import { type Frame, frameFromBytes } from './frame';
import { encodeFrame, sealFrame, type FrameFields } from './frame-encoder';
import { parseRequest, type ParsedRequest } from './request-parser';
import { Command, Offset, Operation, Status } from './wire-constants';

const CLIENT = '00000000000000000000000000000abc';
const ZERO = '0'.repeat(32);

type Fields = Partial<FrameFields> & { operation: number };

function request(fields: Fields, body?: string | Uint8Array): Frame {
  return frameFromBytes(encodeFrame({ command: Command.Request, ...fields }, body));
}

/** A request with header bytes changed after encoding, checksums recomputed. */
function patched(frame: Frame, patch: (bytes: Buffer) => void): Frame {
  const bytes = Buffer.from(frame.raw);
  patch(bytes);
  return frameFromBytes(sealFrame(bytes));
}

function accepted(frame: Frame): ParsedRequest {
  const result = parseRequest(frame);
  if (!result.ok) throw new Error(`refused: ${result.message}`);
  return result.request;
}

function refusal(frame: Frame): string {
  const result = parseRequest(frame);
  if (result.ok) throw new Error(`accepted: ${JSON.stringify(result.request)}`);
  expect(result.status).toBe(Status.InvalidRequest);
  return result.message;
}

const REGISTER_BODY = '{"username":"admin","password":"secret"}';
const COMMAND_BODY = '{"pattern":"ledger.deposit","data":{"amount":5}}';
const ping = request({ operation: Operation.Ping });

describe('parseRequest: rules of every request', () => {
  it('refuses a command other than REQUEST', () => {
    for (const command of [Command.Reply, Command.Eviction, 0, 9]) {
      const frame = request({ operation: Operation.Ping, command });
      expect(refusal(frame)).toBe(`command ${command} is not REQUEST (1)`);
    }
  });

  it('refuses a non-zero status', () => {
    expect(refusal(request({ operation: Operation.Ping, status: 1 }))).toMatch(/status 1/);
  });

  it('refuses a non-zero reserved field', () => {
    const frame = patched(ping, (bytes) => bytes.writeUInt16LE(1, Offset.reserved));
    expect(refusal(frame)).toMatch(/reserved 1/);
  });

  it.each<[string, Partial<FrameFields>]>([
    ['op', { op: 1 }],
    ['commit', { commit: 2 ** 40 }],
    ['timestamp', { timestamp: 1n }],
    ['watermark', { watermark: 3 }],
  ])('refuses a non-zero %s (bytes 96..127)', (_field, fields) => {
    const frame = request({ operation: Operation.Ping, ...fields });
    expect(refusal(frame)).toBe('request header bytes 96..127 must be zero');
  });

  it('refuses a non-zero byte anywhere in 96..127', () => {
    for (let index = 96; index < 128; index++) {
      const frame = patched(ping, (bytes) => (bytes[index] = 0x80));
      expect(refusal(frame)).toBe('request header bytes 96..127 must be zero');
    }
  });

  it.each([0, 6, 255])('refuses operation %i', (operation) => {
    expect(refusal(request({ operation }))).toBe(`unknown operation ${operation}`);
  });
});

describe('parseRequest: REGISTER', () => {
  const register = (fields: Partial<FrameFields>, body: string | Uint8Array = REGISTER_BODY) =>
    request({ operation: Operation.Register, client: CLIENT, ...fields }, body);

  it('accepts credentials, ignoring extra keys', () => {
    expect(accepted(register({}))).toEqual({
      operation: Operation.Register,
      username: 'admin',
      password: 'secret',
    });
    const extra = register({}, '{"password":"p","extra":[1],"username":"ü"}');
    expect(accepted(extra)).toEqual({
      operation: Operation.Register,
      username: 'ü',
      password: 'p',
    });
  });

  it('refuses a zero client, a session or a request', () => {
    expect(refusal(register({ client: ZERO }))).toBe('REGISTER needs a non-zero client');
    expect(refusal(register({ session: 1 }))).toBe('REGISTER needs session 0');
    expect(refusal(register({ request: 1 }))).toBe('REGISTER needs request 0');
  });

  it.each([
    ['an empty body', ''],
    ['invalid JSON', '{"username":"a",'],
    ['a JSON array', '["admin","secret"]'],
    ['JSON null', 'null'],
    ['a JSON string', '"admin"'],
    ['a missing username', '{"password":"p"}'],
    ['a numeric username', '{"username":1,"password":"p"}'],
    ['a missing password', '{"username":"u"}'],
    ['a null password', '{"username":"u","password":null}'],
    ['a byte-order mark', '\ufeff' + REGISTER_BODY],
  ])('refuses %s', (_what, body) => {
    expect(refusal(register({}, body))).toMatch(/^REGISTER /);
  });

  it('refuses a body that is not valid UTF-8 rather than repairing it', () => {
    const body = Buffer.concat([
      Buffer.from('{"username":"'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('","password":"p"}'),
    ]);
    expect(refusal(register({}, body))).toBe('REGISTER body is not valid UTF-8');
  });
});

describe('parseRequest: LOGOUT', () => {
  it('accepts an empty body, leaving session and request to the session checks', () => {
    for (const [session, request_] of [
      [42, 9],
      [0, 0],
    ]) {
      const frame = request({
        operation: Operation.Logout,
        client: CLIENT,
        session,
        request: request_,
      });
      expect(accepted(frame)).toEqual({ operation: Operation.Logout });
    }
  });

  it('refuses a zero client or a body', () => {
    expect(refusal(request({ operation: Operation.Logout, session: 1, request: 1 }))).toBe(
      'LOGOUT needs a non-zero client',
    );
    expect(refusal(request({ operation: Operation.Logout, client: CLIENT }, '{}'))).toBe(
      'LOGOUT needs an empty body',
    );
  });
});

describe.each([
  ['COMMAND', Operation.Command],
  ['QUERY', Operation.Query],
] as const)('parseRequest: %s body', (name, operation) => {
  const call = (body: string | Uint8Array) =>
    request({ operation, client: CLIENT, session: 42, request: 0 }, body);

  it('accepts a pattern with data of any JSON type', () => {
    expect(accepted(call(COMMAND_BODY))).toEqual({
      operation,
      pattern: 'ledger.deposit',
      data: { amount: 5 },
    });
    for (const data of [null, 0, 'x', [1, 2], false]) {
      expect(accepted(call(JSON.stringify({ pattern: 'p', data })))).toEqual({
        operation,
        pattern: 'p',
        data,
      });
    }
  });

  it('reads an absent data as null and ignores extra keys', () => {
    expect(accepted(call('{"pattern":"p","other":1}'))).toEqual({
      operation,
      pattern: 'p',
      data: null,
    });
  });

  it.each([
    ['an empty body', ''],
    ['invalid JSON', '{"pattern":'],
    ['a JSON array', '[]'],
    ['a missing pattern', '{"data":1}'],
    ['an empty pattern', '{"pattern":""}'],
    ['a numeric pattern', '{"pattern":3}'],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0x7d])],
  ])('refuses %s', (_what, body) => {
    expect(refusal(call(body))).toMatch(new RegExp(`^${name} `));
  });
});

describe('parseRequest: COMMAND header', () => {
  it('refuses a zero client', () => {
    const frame = request({ operation: Operation.Command, session: 1, request: 1 }, COMMAND_BODY);
    expect(refusal(frame)).toBe('COMMAND needs a non-zero client');
  });

  it('leaves request 0 to the session checks, which PROTOCOL.md orders after the lookup', () => {
    const frame = request(
      { operation: Operation.Command, client: CLIENT, session: 1, request: 0 },
      COMMAND_BODY,
    );
    expect(accepted(frame)).toMatchObject({ operation: Operation.Command });
  });
});

describe('parseRequest: QUERY header', () => {
  it('accepts request 0', () => {
    const frame = request({ operation: Operation.Query, session: 5 }, COMMAND_BODY);
    expect(accepted(frame)).toMatchObject({ operation: Operation.Query });
  });

  it('refuses a request number', () => {
    const frame = request({ operation: Operation.Query, client: CLIENT, request: 1 }, COMMAND_BODY);
    expect(refusal(frame)).toBe('QUERY needs request 0');
  });
});

describe('parseRequest: PING', () => {
  it('accepts an empty ping, with or without a client', () => {
    expect(accepted(ping)).toEqual({ operation: Operation.Ping });
    expect(accepted(request({ operation: Operation.Ping, client: CLIENT }))).toEqual({
      operation: Operation.Ping,
    });
  });

  it('refuses a session, a request or a body', () => {
    expect(refusal(request({ operation: Operation.Ping, session: 1 }))).toBe(
      'PING needs session 0',
    );
    expect(refusal(request({ operation: Operation.Ping, request: 1 }))).toBe(
      'PING needs request 0',
    );
    expect(refusal(request({ operation: Operation.Ping }, 'x'))).toBe('PING needs an empty body');
  });
});

describe('parseRequest on arbitrary input', () => {
  it('never throws and refuses only with INVALID_REQUEST', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 128, maxLength: 128 }),
        fc.oneof(
          fc.uint8Array({ maxLength: 64 }),
          fc.json().map((json) => Buffer.from(json)),
        ),
        fc.integer({ min: 0, max: 7 }),
        (header, body, operation) => {
          const bytes = Buffer.concat([header, body]);
          bytes[Offset.command] = Command.Request;
          bytes[Offset.operation] = operation;
          bytes.writeUInt32LE(bytes.length, Offset.size);
          bytes.fill(0, 96, 128);
          const result = parseRequest(frameFromBytes(sealFrame(bytes)));
          if (!result.ok) expect(result.status).toBe(Status.InvalidRequest);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('does not throw on a frame that breaks its own invariants', () => {
    const broken: Frame = { header: ping.header, raw: Buffer.alloc(3), body: Buffer.alloc(0) };
    expect(parseRequest(broken)).toMatchObject({ ok: false, status: Status.InvalidRequest });
  });
});
