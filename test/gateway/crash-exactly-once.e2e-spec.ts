import { Command, Status, randomClientId } from '@once/protocol';
import { RawClient, type ServiceProcess } from '@once/testing';
import { PipelinedDepositor } from '../support/pipelined-depositor';
import { commandOk, queryResult, registerOk, startService } from '../support/sessions';

const TOTAL = 400;
const WINDOW = 8;
/** Acknowledgement counts at which the node is killed with SIGKILL. */
const CRASH_POINTS = [80, 180, 300];

/** How the node rebuilds its state at restart. */
const RECOVERIES: ReadonlyArray<{ recovery: string; env: Record<string, string> }> = [
  { recovery: 'replay of the whole journal', env: {} },
  {
    recovery: 'a snapshot every 37 ops and replay of the tail',
    env: { ONCE_SNAPSHOT_EVERY_OPS: '37' },
  },
];

/**
 * Exactly-once under repeated SIGKILLs: a pipelined client that follows the
 * protocol's retry rules (resume the same session, resend every unacknowledged
 * request under its original number and body) sees every request applied
 * exactly once, however often the node dies under it, whether the node
 * recovers from the journal alone or from snapshots and the journal's tail.
 */
describe.each(RECOVERIES)(
  'given a client keeping 8 deposits in flight, a node killed with SIGKILL three times, and recovery by $recovery',
  ({ env }) => {
    let service: ServiceProcess;
    const account = 'exactly-once';
    const client = randomClientId();
    let depositor: PipelinedDepositor;
    const crashes: number[] = [];

    beforeAll(async () => {
      service = await startService(env);
      const setup = await RawClient.connect(service.port);
      try {
        const admin = (await registerOk(setup, randomClientId())).session;
        await commandOk(setup, admin, 1, 'ledger.open', { account });
      } finally {
        setup.destroy();
      }
      const registering = await RawClient.connect(service.port);
      const session = (await registerOk(registering, client)).session;
      registering.destroy();

      let back: Promise<void> = Promise.resolve();
      depositor = new PipelinedDepositor({
        port: () => service.port,
        session,
        account,
        total: TOTAL,
        window: WINDOW,
        // Token, REGISTER, token: both ways back into the session.
        resumeBy: (resume) => (resume % 2 === 0 ? 'token' : 'register'),
        nodeBack: () => back,
        onAck: (acknowledged) => {
          if (!CRASH_POINTS.includes(acknowledged)) return false;
          crashes.push(acknowledged);
          // SIGKILL is sent before this returns, with deposits in flight; the client drops
          // its connection too, losing the replies it has not read yet.
          back = service.crash().then(() => service.restart());
          return true;
        },
      });
      await depositor.run();
      await back;
    });
    afterAll(() => service.cleanup());

    it('when the client ran to the end, then the node was killed three times and the client resumed each time, resending only unacknowledged numbers', () => {
      expect(crashes).toEqual(CRASH_POINTS);
      expect(depositor.resumes.map((resume) => resume.by)).toEqual(['token', 'register', 'token']);
      for (const resume of depositor.resumes) {
        expect(resume.highestAcked).toBe(crashes[depositor.resumes.indexOf(resume)]);
        expect(resume.resent.length).toBeLessThanOrEqual(WINDOW);
        // Every retry was answered: from the cache (committed before the crash) or by a fresh commit.
        expect([...resume.cached, ...resume.fresh].sort((x, y) => x - y)).toEqual(resume.resent);
        for (const request of resume.resent) {
          expect(request).toBeGreaterThan(resume.highestAcked);
          expect(request).toBeLessThanOrEqual(resume.highestSent);
        }
        if (resume.watermark !== undefined) {
          // The REGISTER's watermark settles the in-doubt requests: applied ones are ≤ it.
          expect(resume.watermark).toBeGreaterThanOrEqual(resume.highestAcked);
          expect(resume.watermark).toBeLessThanOrEqual(resume.highestSent);
          expect(resume.cached).toEqual(
            resume.resent.filter((request) => request <= resume.watermark!),
          );
        }
      }
    });

    it('when the acknowledgements are counted, then every number 1..N was acknowledged exactly once, in order, each with the balance it leaves', () => {
      expect(depositor.anomalies).toEqual([]);
      const numbers = [...depositor.acknowledgements.keys()].sort((x, y) => x - y);
      expect(numbers).toEqual(Array.from({ length: TOTAL }, (_, index) => index + 1));
      expect([...depositor.acknowledgements.values()].every((times) => times === 1)).toBe(true);
    });

    it('when the balance is queried, then it equals the number of distinct acknowledged requests, N: nothing lost, nothing doubled', async () => {
      const raw = await RawClient.connect(service.port);
      try {
        const { session } = await registerOk(raw, client);
        expect(session.watermark).toBe(TOTAL);
        expect(await queryResult(raw, session, 'ledger.balance', { account })).toEqual({
          balance: depositor.acknowledged,
        });
        expect(depositor.acknowledged).toBe(TOTAL);
      } finally {
        raw.destroy();
      }
    });

    it('when the node stops gracefully and starts again, then it exits 0, the journal gives the same balance, and the last ring of replies is still cached byte for byte', async () => {
      expect(await service.stop()).toBe(0);
      await service.restart();
      const raw = await RawClient.connect(service.port);
      try {
        const { session } = await registerOk(raw, client);
        expect(session.watermark).toBe(TOTAL);
        expect(await queryResult(raw, session, 'ledger.balance', { account })).toEqual({
          balance: TOTAL,
        });
        for (let request = TOTAL - WINDOW + 1; request <= TOTAL; request++) {
          raw.write(depositor.frameOf(request, session));
          const cached = await raw.next();
          expect(cached.raw.equals(depositor.replies.get(request)!)).toBe(true);
        }
        raw.write(depositor.frameOf(TOTAL - WINDOW, session));
        expect((await raw.next()).header).toMatchObject({
          command: Command.Reply,
          status: Status.AlreadyApplied,
          request: TOTAL - WINDOW,
          watermark: TOTAL,
        });
      } finally {
        raw.destroy();
      }
    });
  },
);
