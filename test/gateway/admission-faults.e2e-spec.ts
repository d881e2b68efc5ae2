import { join } from 'node:path';
import { Command, type Frame, STATUS_NAMES, Status } from '@once/protocol';
import { type RawClient, ServiceProcess, outcomeOf } from '@once/testing';
import { Connections, TestSession, expectAnswerTo } from '../support/wire';

const RING = 3;
const USERS = { alice: 'alice-pw' };

/** The next frame on `raw`, or a failure that says which answer never came. */
async function answerTo(raw: RawClient, what: string): Promise<Frame> {
  try {
    return await raw.next(5000);
  } catch (error) {
    throw new Error(`${what} was never answered (${(error as Error).message})`);
  }
}

const describeAnswer = (frame: Frame) =>
  `${STATUS_NAMES[frame.header.status as Status] ?? frame.header.status} ${frame.body.toString('utf8')}`;

/**
 * An answer a failed admission may get: NOT_READY (retry the same frame
 * later), or a committed refusal (status OK, `{"ok": false, …}`).
 */
function expectFailedAdmission(answer: Frame, request: Buffer): void {
  const { status } = answer.header;
  if (status === (Status.NotReady as number)) {
    expectAnswerTo(answer, request, { command: Command.Reply, status: Status.NotReady });
    return;
  }
  expectAnswerTo(answer, request, { command: Command.Reply, status: Status.Ok, replicated: true });
  expect(outcomeOf(answer)).toMatchObject({ ok: false });
}

describe('given a service whose team module has commands with misbehaving admission pipelines (ring 3)', () => {
  let service: ServiceProcess;
  const connections = new Connections(() => service.port);
  beforeAll(async () => {
    service = await ServiceProcess.start({
      modules: [
        {
          path: join(__dirname, '../fixtures/admission-faults/admission-faults.module.ts'),
          export: 'AdmissionFaultsModule',
        },
      ],
      users: USERS,
      env: { ONCE_RING: String(RING) },
    });
  });
  afterAll(async () => {
    connections.destroyAll();
    await service?.cleanup();
  });

  const openSession = async () =>
    TestSession.open(await connections.connect(), { username: 'alice', password: USERS.alice });

  describe('when a pipe yields a value the journal cannot encode (a BigInt) after the request was admitted', () => {
    it('then the first attempt is answered, and a retry of the same frame is answered too', async () => {
      const session = await openSession();
      const raw = session.connection;
      const request = session.commandBytes('faults.big', { amount: 5 }, 1);

      raw.write(request);
      const first = await answerTo(raw, 'the first attempt');
      expectFailedAdmission(first, request);

      raw.write(request);
      const retry = await answerTo(
        raw,
        `the retry of the same frame (the first attempt got ${describeAnswer(first)})`,
      );
      expectFailedAdmission(retry, request);
      if (first.header.status === (Status.Ok as number)) {
        expect(retry.raw.equals(first.raw)).toBe(true); // a committed refusal is cached
      }
      expect(service.running).toBe(true);
    });

    it(`then after ${RING} (the ring) such failures the session still commits a normal command: no place of its ring is lost`, async () => {
      const session = await openSession();
      const raw = session.connection;
      // A client as PROTOCOL.md asks: a number answered REQUEST_GAP is resent
      // from watermark + 1; a failed admission moves on to the next number
      // (if the failure did not use the number, the node says so by a gap).
      let number = 1;
      let failures = 0;
      for (let sent = 0; failures < RING; sent++) {
        if (sent > 4 * RING) throw new Error(`no admission failed ${RING} times in ${sent} sends`);
        const request = session.commandBytes('faults.big', { amount: 100 + sent }, number);
        raw.write(request);
        const answer = await answerTo(raw, `failing admission ${failures + 1}, request ${number}`);
        if (answer.header.status === (Status.RequestGap as number)) {
          number = answer.header.watermark + 1;
          continue;
        }
        expectFailedAdmission(answer, request);
        failures++;
        number++;
      }

      for (let sent = 0; ; sent++) {
        if (sent > 2) throw new Error('the normal command kept getting REQUEST_GAP');
        const request = session.commandBytes('faults.echo', { amount: 7 }, number);
        raw.write(request);
        const answer = await answerTo(
          raw,
          `the normal command (request ${number}) after ${RING} failed admissions`,
        );
        if (answer.header.status === (Status.RequestGap as number)) {
          number = answer.header.watermark + 1;
          continue;
        }
        expectAnswerTo(answer, request, {
          command: Command.Reply,
          status: Status.Ok,
          watermark: number,
          replicated: true,
        });
        expect(outcomeOf(answer)).toEqual({ ok: true, result: { amount: 7 } });
        break;
      }
    });
  });

  it.each([
    [
      'a team guard returns false, in a controller whose exception filter translates RpcException messages',
      'FORBIDDEN',
      'faults.denied',
    ],
    [
      "a pipe (not a guard) throws new RpcException('Forbidden resource')",
      'ADMISSION_REFUSED',
      'faults.pipe-forbidden',
    ],
  ])(
    'when %s at admission, then the committed refusal carries %s',
    async (_what, code, pattern) => {
      const session = await openSession();
      const request = session.commandBytes(pattern, { amount: -1 }, 1);
      session.connection.write(request);
      const answer = await answerTo(session.connection, pattern);
      expectAnswerTo(answer, request, {
        command: Command.Reply,
        status: Status.Ok,
        watermark: 1,
        replicated: true,
      });
      expect(outcomeOf(answer)).toMatchObject({ ok: false, error: { code } });
    },
  );
});
