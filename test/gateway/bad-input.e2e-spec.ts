import fc from 'fast-check';
import { Command, type Frame, Operation, Status, randomClientId } from '@once/protocol';
import { HEADER_SIZE, Offset } from '@once/protocol/internal';
import { RawClient, type ServiceProcess, bodyJson, outcomeOf } from '@once/testing';
import {
  ADMIN_PASSWORD,
  Connections,
  TestSession,
  accountName,
  closedWithin,
  commandBody,
  expectAnswerTo,
  nextFrames,
  onlyFrameThenClosed,
  pingCommit,
  requestBytes,
  reseal,
  resealHeader,
  startService,
} from '../support/wire';

const MAX_FRAME = 4096;

/**
 * Bad input on the wire (PROTOCOL.md, "Frames": magic, version, size,
 * checksum, checksum_body, in that order): each failure is answered with
 * exactly one REPLY BAD_FRAME or VERSION_UNSUPPORTED and the connection is
 * closed, while a well-behaved client connected the whole time keeps being
 * served. Valid frames however they are cut or coalesced are answered normally.
 */
describe(`given a node with max_frame ${MAX_FRAME} and a well-behaved client connected the whole time`, () => {
  let service: ServiceProcess;
  let connections: Connections;
  let witness: TestSession;
  let account: string;
  let balance = 0;

  beforeAll(async () => {
    service = await startService({ ONCE_FRAME_BYTES_MAX: String(MAX_FRAME) });
    connections = new Connections(() => service.port);
    witness = await TestSession.open(await connections.connect());
    account = accountName('witness');
    await witness.command('ledger.open', { account });
  });
  afterAll(async () => {
    connections.destroyAll();
    await service.cleanup();
  });

  /** The witness still gets PING and a ledger command answered. */
  async function expectWitnessServed(): Promise<void> {
    const ping = await witness.connection.ping();
    expect(bodyJson(ping)).toMatchObject({ version: 1, ready: true });
    const { reply } = await witness.command('ledger.deposit', { account, amount: 1 });
    balance += 1;
    expect(reply.header).toMatchObject({ status: Status.Ok, request: witness.next - 1 });
    expect(outcomeOf(reply)).toEqual({ ok: true, result: { balance } });
    expect(service.running).toBe(true);
  }

  function validCommandFields() {
    return { operation: Operation.Command, client: randomClientId(), session: 7, request: 1 };
  }
  function validCommand(): Buffer {
    return requestBytes(
      validCommandFields(),
      commandBody('ledger.deposit', { account: 'x', amount: 1 }),
    );
  }
  function validPing(): Buffer {
    return requestBytes({ operation: Operation.Ping });
  }

  const badFrames: Array<[string, () => Buffer, Status]> = [
    [
      'a PING whose header checksum has a flipped bit',
      () => {
        const frame = validPing();
        frame[Offset.checksum + 5] ^= 0x10;
        return frame;
      },
      Status.BadFrame,
    ],
    [
      'a COMMAND whose checksum_body has a flipped bit (header checksum recomputed)',
      () => {
        const frame = validCommand();
        frame[Offset.checksumBody + 3] ^= 0x01;
        return resealHeader(frame);
      },
      Status.BadFrame,
    ],
    [
      'a COMMAND whose body has a changed byte',
      () => {
        const frame = validCommand();
        frame[frame.length - 3] ^= 0x20;
        return frame;
      },
      Status.BadFrame,
    ],
    [
      'a PING with a wrong magic (checksums recomputed)',
      () => {
        const frame = validPing();
        frame.writeUInt32LE(0x45434e4e, Offset.magic);
        return reseal(frame);
      },
      Status.BadFrame,
    ],
    [
      'a PING with version 2 (checksums recomputed)',
      () => {
        const frame = validPing();
        frame.writeUInt16LE(2, Offset.version);
        return reseal(frame);
      },
      Status.VersionUnsupported,
    ],
    [
      'a PING with version 2 and a wrong header checksum (the version is checked first)',
      () => {
        const frame = validPing();
        frame.writeUInt16LE(2, Offset.version);
        return frame;
      },
      Status.VersionUnsupported,
    ],
    [
      'a PING with a wrong magic and version 2 (the magic is checked first)',
      () => {
        const frame = validPing();
        frame.writeUInt32LE(0x12345678, Offset.magic);
        frame.writeUInt16LE(2, Offset.version);
        return reseal(frame);
      },
      Status.BadFrame,
    ],
    [
      'a PING whose size says 127 (checksums recomputed)',
      () => {
        const frame = validPing();
        frame.writeUInt32LE(127, Offset.size);
        return reseal(frame);
      },
      Status.BadFrame,
    ],
    [
      `a header alone whose size says 5000, above max_frame ${MAX_FRAME} (the body is never sent)`,
      () => {
        const frame = validCommand().subarray(0, HEADER_SIZE);
        frame.writeUInt32LE(5000, Offset.size);
        return resealHeader(Buffer.from(frame));
      },
      Status.BadFrame,
    ],
    [
      `a whole COMMAND of max_frame + 1 = ${MAX_FRAME + 1} bytes`,
      () =>
        paddedCommand(MAX_FRAME + 1, 'x', (data) =>
          requestBytes(validCommandFields(), commandBody('ledger.deposit', data)),
        ),
      Status.BadFrame,
    ],
    [
      '40 bytes of garbage',
      () => Buffer.from(Array.from({ length: 40 }, (_, i) => (i * 37 + 11) & 0xff)),
      Status.BadFrame,
    ],
  ];

  it.each(badFrames)(
    'when a fresh connection sends %s, then exactly one REPLY with that status arrives, the node closes the connection, and the witness is still served',
    async (_what, build, status) => {
      const commit = await pingCommit(witness.connection);
      const connection = await connections.connect();
      const bytes = build();

      connection.write(bytes);
      const reply = await onlyFrameThenClosed(connection);

      expect({
        command: reply.header.command,
        status: reply.header.status,
        op: reply.header.op,
        commit: reply.header.commit,
        timestamp: reply.header.timestamp,
      }).toEqual({ command: Command.Reply, status, op: 0, commit, timestamp: 0n });
      await expectWitnessServed();
    },
  );

  it(`when the witness sends a COMMAND of exactly max_frame = ${MAX_FRAME} bytes, then it is answered normally`, async () => {
    const request = paddedCommand(MAX_FRAME, account, (data) =>
      witness.commandBytes('ledger.deposit', data),
    );
    expect(request.length).toBe(MAX_FRAME);
    witness.next++;
    witness.connection.write(request);
    const reply = await witness.connection.next();
    balance += 1;

    expectAnswerTo(reply, request, {
      command: Command.Reply,
      status: Status.Ok,
      op: reply.header.op,
      commit: reply.header.op,
      watermark: witness.next - 1,
      replicated: true,
    });
    expect(outcomeOf(reply)).toEqual({ ok: true, result: { balance } });
    await expectWitnessServed();
  });

  it('when a valid PING and 40 bytes of garbage arrive in one write, then the PING is answered, then exactly one REPLY BAD_FRAME, and the node closes the connection', async () => {
    const connection = await connections.connect();
    const ping = requestBytes({ operation: Operation.Ping });
    const garbage = Buffer.from(Array.from({ length: 40 }, (_, i) => (i * 37 + 11) & 0xff));

    connection.write(Buffer.concat([ping, garbage]));
    const answers = await answersUntilQuiet(connection, 1000);
    await closedWithin(connection);

    expect(answers.map((frame) => [frame.header.operation, frame.header.status])).toEqual([
      [Operation.Ping, Status.Ok],
      [expect.any(Number), Status.BadFrame],
    ]);
    await expectWitnessServed();
  });

  it('when a COMMAND body adds a "refusal" key spelled with a JSON escape, then the client cannot dictate its outcome: the command is refused as INVALID_REQUEST or applied by its handler', async () => {
    const mine = accountName('smuggle');
    const body =
      `{"pattern":"ledger.open","data":{"account":"${mine}"},` +
      `"refus\\u0061l":{"code":"FORGED","message":"outcome chosen by the client"}}`;
    expect(JSON.parse(body)).toHaveProperty('refusal');
    const request = requestBytes(
      {
        operation: Operation.Command,
        client: witness.client,
        session: witness.epoch,
        request: witness.next,
        resumeToken: witness.token,
      },
      body,
    );

    witness.connection.write(request);
    const reply = await witness.connection.next();

    if ((reply.header.status as Status) === Status.InvalidRequest) {
      expectAnswerTo(reply, request, { command: Command.Reply, status: Status.InvalidRequest });
    } else {
      witness.next++;
      expectAnswerTo(reply, request, {
        command: Command.Reply,
        status: Status.Ok,
        op: reply.header.op,
        commit: reply.header.op,
        watermark: witness.next - 1,
        replicated: true,
      });
      expect(outcomeOf(reply)).toEqual({ ok: true, result: { account: mine, balance: 0 } });
    }
    await expectWitnessServed();
  });

  it('when a valid REGISTER and then a valid COMMAND are each written one byte at a time, then both are answered normally', async () => {
    const connection = await connections.connect();
    const client = randomClientId();
    const register = requestBytes(
      { operation: Operation.Register, client },
      JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
    );
    await writeByteByByte(connection, register);
    const registered = await connection.next();
    expectAnswerTo(registered, register, {
      command: Command.Reply,
      status: Status.Ok,
      session: registered.header.op,
      op: registered.header.op,
      commit: registered.header.op,
      watermark: 0,
      replicated: true,
    });
    const mine = accountName('split');
    const command = requestBytes(
      { operation: Operation.Command, client, session: registered.header.op, request: 1 },
      commandBody('ledger.open', { account: mine }),
    );
    await writeByteByByte(connection, command);
    const opened = await connection.next();
    expectAnswerTo(opened, command, {
      command: Command.Reply,
      status: Status.Ok,
      op: opened.header.op,
      commit: opened.header.op,
      watermark: 1,
      replicated: true,
    });
    expect(outcomeOf(opened)).toEqual({ ok: true, result: { account: mine, balance: 0 } });
    await expectWitnessServed();
  });

  it('when 24 COMMANDs of one session and then 10 PINGs are each coalesced into a single write, then every one is answered, in order', async () => {
    const connection = await connections.connect();
    const session = await TestSession.open(connection);
    const mine = accountName('batch');
    await session.command('ledger.open', { account: mine });
    const deposits = Array.from({ length: 24 }, (_, i) =>
      session.commandBytes('ledger.deposit', { account: mine, amount: i + 1 }, i + 2),
    );

    connection.write(Buffer.concat(deposits));
    const replies = await nextFrames(connection, deposits.length);

    let expected = 0;
    replies.forEach((reply, i) => {
      expected += i + 1;
      expectAnswerTo(reply, deposits[i], {
        command: Command.Reply,
        status: Status.Ok,
        op: reply.header.op,
        commit: reply.header.op,
        watermark: i + 2,
        replicated: true,
      });
      expect(outcomeOf(reply)).toEqual({ ok: true, result: { balance: expected } });
    });

    const pings = Array.from({ length: 10 }, () => requestBytes({ operation: Operation.Ping }));
    connection.write(Buffer.concat(pings));
    const pongs = await nextFrames(connection, pings.length);
    for (const pong of pongs) {
      expect(pong.header).toMatchObject({ command: Command.Reply, operation: Operation.Ping });
      expect(bodyJson(pong)).toEqual({
        version: 1,
        commit: replies[23].header.op,
        ready: true,
        node: null,
        role: 'none',
        leader: null,
      });
    }
    await connection.expectSilence(100);
    await expectWitnessServed();
  });

  it('when random byte strings and mutated valid frames arrive on fresh connections, then each is answered BAD_FRAME, VERSION_UNSUPPORTED, INVALID_REQUEST, NOT_BOUND or an OK PING, or not at all, and the node keeps serving', async () => {
    const bases: Buffer[] = [
      requestBytes({ operation: Operation.Ping }),
      requestBytes(
        { operation: Operation.Command, client: randomClientId(), session: 3, request: 1 },
        commandBody('ledger.deposit', { account: 'x', amount: 1 }),
      ),
      requestBytes(
        { operation: Operation.Query, client: randomClientId(), session: 3 },
        commandBody('ledger.balance', { account: 'x' }),
      ),
      requestBytes({
        operation: Operation.Logout,
        client: randomClientId(),
        session: 3,
        request: 1,
      }),
    ];
    const randomBytes = fc.uint8Array({ minLength: 1, maxLength: 400 }).map((bytes) => ({
      kind: 'random' as const,
      bytes: Buffer.from(bytes),
    }));
    const mutatedFrame = fc
      .record({
        base: fc.nat({ max: bases.length - 1 }),
        mutations: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 4,
        }),
        resealed: fc.boolean(),
      })
      .map(({ base, mutations, resealed }) => {
        const bytes = Buffer.from(bases[base]);
        // Resealed mutations leave the checksums alone (they are recomputed).
        const from = resealed ? Offset.magic : 0;
        for (const [position, value] of mutations) {
          bytes[from + (position % (bytes.length - from))] = value;
        }
        return { kind: 'mutated' as const, bytes: resealed ? reseal(bytes) : bytes };
      });

    await fc.assert(
      fc.asyncProperty(fc.oneof(randomBytes, mutatedFrame), async ({ bytes }) => {
        const connection = await RawClient.connect(service.port);
        try {
          connection.write(bytes);
          const answers = await answersUntilQuiet(connection, 150);
          for (const answer of answers) expectAcceptable(answer);
          const closing = answers.find(
            (answer) =>
              (answer.header.status as Status) === Status.BadFrame ||
              (answer.header.status as Status) === Status.VersionUnsupported,
          );
          if (closing) {
            expect(answers[answers.length - 1]).toBe(closing);
            await closedWithin(connection);
          } else {
            expect(answers.length).toBeLessThanOrEqual(1);
          }
        } finally {
          connection.destroy();
        }
      }),
      { numRuns: 40 },
    );

    expect(service.running).toBe(true);
    await expectWitnessServed();
  });
});

/** Writes `bytes` one byte per write, yielding to the timer queue between writes. */
async function writeByteByByte(connection: RawClient, bytes: Buffer): Promise<void> {
  for (let i = 0; i < bytes.length; i++) {
    connection.write(bytes.subarray(i, i + 1));
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Every frame the node sends until it closes the connection or stays quiet for `quietMs`. */
async function answersUntilQuiet(connection: RawClient, quietMs: number): Promise<Frame[]> {
  const frames: Frame[] = [];
  for (;;) {
    try {
      frames.push(await connection.next(quietMs));
    } catch {
      return frames; // quiet, or closed
    }
  }
}

/** An answer the fuzzed input may get: a REPLY with one of the statuses a stranger can provoke. */
function expectAcceptable(answer: Frame): void {
  expect(answer.header.command).toBe(Command.Reply);
  expect([
    Status.Ok,
    Status.BadFrame,
    Status.VersionUnsupported,
    Status.InvalidRequest,
    Status.NotBound,
  ]).toContain(answer.header.status);
  if ((answer.header.status as Status) === Status.Ok) {
    expect(answer.header.operation).toBe(Operation.Ping);
    expect(bodyJson(answer)).toMatchObject({ version: 1, ready: true });
  }
}

/**
 * A COMMAND frame of exactly `size` bytes: a ledger.deposit of 1 to `account`
 * whose data carries a padding string; `encode` turns the data into the frame.
 */
function paddedCommand(
  size: number,
  account: string,
  encode: (data: { account: string; amount: number; pad: string }) => Buffer,
): Buffer {
  const unpadded = encode({ account, amount: 1, pad: '' }).length;
  const frame = encode({ account, amount: 1, pad: 'p'.repeat(size - unpadded) });
  if (frame.length !== size) throw new Error(`padded frame is ${frame.length} bytes, not ${size}`);
  return frame;
}
