import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@once/testing';
import { FAULTY_AMOUNT } from '../fixtures/http-ledger/http-ledger.controller';
import { Gate } from '../nest/support/gate';
import { type HttpLedgerApp, type Platform, startHttpLedgerApp } from './support/http-ledger-app';
import { type HttpLedgerAnswer, postJson, readAccount } from './support/http-ledger-client';

function json(answer: HttpLedgerAnswer): Record<string, unknown> {
  return JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
}

describe.each<Platform>(['express', 'fastify'])(
  'given a NestJS HTTP app on %s with exactly-once ledger routes on a LevelDB journal',
  (platform) => {
    let root: string;
    let dataDir: string;
    const journalWrites = new Gate();
    let ledger: HttpLedgerApp | undefined;

    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), `once-http-${platform}-`));
      dataDir = join(root, 'data');
      ledger = await startHttpLedgerApp(platform, dataDir, journalWrites);
    });
    afterAll(async () => {
      journalWrites.open();
      await ledger?.app.close();
      if (root) await rm(root, { recursive: true, force: true });
    });

    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      postJson(`${ledger!.url}/ledger/${path}`, body, headers);
    const account = (id: string) => readAccount(ledger!.url, id);

    const key = (value: string) => ({ 'idempotency-key': value });

    it('when a deposit carries no Idempotency-Key, then it is answered 400 IDEMPOTENCY_KEY_MISSING and nothing is applied', async () => {
      const answer = await post('accounts/nokey/deposit', { amount: 5 });
      expect(answer.status).toBe(400);
      expect(json(answer).code).toBe('IDEMPOTENCY_KEY_MISSING');
      expect(await account('nokey')).toMatchObject({ balance: 0 });
    });

    it('when the route makes the key optional, then each request without one is applied on its own, never replayed', async () => {
      const once = await post('accounts/o-1/deposit-optional', { amount: 4 });
      const twice = await post('accounts/o-1/deposit-optional', { amount: 4 });
      expect([once.status, twice.status]).toEqual([201, 201]);
      expect([once.replayed, twice.replayed]).toEqual(['false', 'false']);
      expect(await account('o-1')).toMatchObject({ balance: 8, applied: 2 });
    });

    it.each([
      ['an unclosed sf-string', '"abc'],
      ['two keys', '"a", "b"'],
      ['a key of 256 characters', 'k'.repeat(256)],
    ])(
      'when the key is %s, then it is answered 400 IDEMPOTENCY_KEY_INVALID and nothing is applied',
      async (_what, value) => {
        const answer = await post('accounts/badkey/deposit', { amount: 5 }, key(value));
        expect(answer.status).toBe(400);
        expect(Object.keys(json(answer))).toEqual(['code', 'message']);
        expect(json(answer).code).toBe('IDEMPOTENCY_KEY_INVALID');
        expect(await account('badkey')).toMatchObject({ balance: 0 });
      },
    );

    let first: HttpLedgerAnswer;

    it('when a deposit carries a new key, then it is applied and answered 201 with Idempotent-Replayed: false', async () => {
      first = await post('accounts/a-1/deposit', { amount: 50 }, key('"deposit-1"'));
      expect(first.status).toBe(201);
      expect(first.replayed).toBe('false');
      expect(json(first)).toMatchObject({ account: 'a-1', balance: 50, user: 0 });
      expect(await account('a-1')).toMatchObject({ balance: 50, applied: 1 });
    });

    it('when the same request is sent again with the same key (bare this time), then it gets the same status and body bytes, Idempotent-Replayed: true, and the state changed once', async () => {
      const again = await post('accounts/a-1/deposit', { amount: 50 }, key('deposit-1'));
      expect(again.status).toBe(first.status);
      expect(again.body.equals(first.body)).toBe(true);
      expect(again.replayed).toBe('true');
      expect(await account('a-1')).toMatchObject({ balance: 50, applied: 1 });
    });

    it('when the route has an admission step, then its output (a random stamp) is journaled once and a retry gets it again, replayed; its refusal is answered and not recorded', async () => {
      const stamped = await post('accounts/s-1/deposit-stamped', { amount: 7 }, key('"stamped-1"'));
      expect(stamped.status).toBe(201);
      expect(json(stamped)).toMatchObject({ account: 's-1', balance: 7 });
      expect(json(stamped).stamp).toMatch(/^[0-9a-f-]{36}$/);
      const again = await post('accounts/s-1/deposit-stamped', { amount: 7 }, key('"stamped-1"'));
      expect(again.replayed).toBe('true');
      expect(again.body.equals(stamped.body)).toBe(true);
      expect(await account('s-1')).toMatchObject({ balance: 7, applied: 1 });

      const refused = await post(
        'accounts/s-1/deposit-stamped',
        { amount: 5_000 },
        key('"stamped-2"'),
      );
      expect(refused.status).toBe(422);
      expect(refused.replayed).toBe('false');
      expect(json(refused)).toEqual({
        code: 'LIMIT_EXCEEDED',
        message: 'at most 1000 per deposit',
      });
      // Not recorded: the key is free for the request the step takes.
      const taken = await post('accounts/s-1/deposit-stamped', { amount: 3 }, key('"stamped-2"'));
      expect(taken.status).toBe(201);
      expect(await account('s-1')).toMatchObject({ balance: 10, applied: 2 });
    });

    it('when the same key comes with another body, then it is answered 422 IDEMPOTENCY_KEY_REUSED and nothing is applied', async () => {
      const other = await post('accounts/a-1/deposit', { amount: 51 }, key('deposit-1'));
      expect(other.status).toBe(422);
      expect(json(other).code).toBe('IDEMPOTENCY_KEY_REUSED');
      expect(await account('a-1')).toMatchObject({ balance: 50, applied: 1 });
    });

    it('when two users send the same key, then each gets a request of their own: keys are scoped to the principal, whose id the apply step sees', async () => {
      const alice = await post(
        'accounts/p-1/deposit',
        { amount: 1 },
        { ...key('shared'), 'x-user': '1' },
      );
      const bob = await post(
        'accounts/p-1/deposit',
        { amount: 1 },
        { ...key('shared'), 'x-user': '2' },
      );
      expect([alice.replayed, bob.replayed]).toEqual(['false', 'false']);
      expect([json(alice).user, json(bob).user]).toEqual([1, 2]);
      expect(await account('p-1')).toMatchObject({ balance: 2, applied: 2 });
    });

    it('when the same request comes while the first is journaled and not yet applied, then the second is answered 409 IDEMPOTENCY_KEY_IN_FLIGHT with Retry-After, and the first completes', async () => {
      journalWrites.close();
      const pending = post('accounts/f-1/deposit', { amount: 7 }, key('flight-1'));
      await eventually(
        () => journalWrites.waiting > 0,
        'the first request held at its journal write',
      );
      const second = await post('accounts/f-1/deposit', { amount: 7 }, key('flight-1'));
      journalWrites.open();
      expect(second.status).toBe(409);
      expect(second.retryAfter).toBe('1');
      expect(json(second).code).toBe('IDEMPOTENCY_KEY_IN_FLIGHT');
      const firstAnswer = await pending;
      expect(firstAnswer.status).toBe(201);
      expect(firstAnswer.replayed).toBe('false');
      expect(await account('f-1')).toMatchObject({ balance: 7 });
    });

    it("when the route waits for requests in flight, then the concurrent retry gets the first's response, replayed", async () => {
      journalWrites.close();
      const pending = post('accounts/w-1/deposit-waiting', { amount: 9 }, key('wait-1'));
      await eventually(
        () => journalWrites.waiting > 0,
        'the first request held at its journal write',
      );
      const retry = post('accounts/w-1/deposit-waiting', { amount: 9 }, key('wait-1'));
      journalWrites.open();
      const [firstAnswer, retryAnswer] = await Promise.all([pending, retry]);
      expect(firstAnswer.status).toBe(201);
      expect(firstAnswer.replayed).toBe('false');
      expect(retryAnswer.status).toBe(201);
      expect(retryAnswer.replayed).toBe('true');
      expect(retryAnswer.body.equals(firstAnswer.body)).toBe(true);
      expect(await account('w-1')).toMatchObject({ balance: 9 });
    });

    it("when the apply step refuses (CommandError), then the refusal is answered with its refusalStatus and replayed byte for byte, and a success with the route's status", async () => {
      const refused = await post('accounts/r-1/withdraw', { amount: 10 }, key('withdraw-1'));
      expect(refused.status).toBe(409);
      expect(refused.body.toString()).toBe(
        '{"code":"INSUFFICIENT_FUNDS","message":"balance 0 < 10"}',
      );
      const again = await post('accounts/r-1/withdraw', { amount: 10 }, key('withdraw-1'));
      expect(again.status).toBe(409);
      expect(again.replayed).toBe('true');
      expect(again.body.equals(refused.body)).toBe(true);

      const funded = await post('accounts/r-1/deposit', { amount: 20 }, key('fund-r-1'));
      expect(funded.status).toBe(201);
      const withdrawn = await post('accounts/r-1/withdraw', { amount: 10 }, key('withdraw-2'));
      expect(withdrawn.status).toBe(200); // the route's @HttpCode(200)
      expect(json(withdrawn)).toEqual({ account: 'r-1', balance: 10 });

      const invalid = await post('accounts/r-1/deposit', { amount: 0 }, key('deposit-0'));
      expect(invalid.status).toBe(422);
      expect(json(invalid).code).toBe('INVALID_AMOUNT');
    });

    it('when the apply step throws, then it is answered 500 HANDLER_FAILED and the retry gets the same bytes', async () => {
      const failed = await post('accounts/x-1/deposit', { amount: FAULTY_AMOUNT }, key('bug-1'));
      expect(failed.status).toBe(500);
      expect(json(failed).code).toBe('HANDLER_FAILED');
      const again = await post('accounts/x-1/deposit', { amount: FAULTY_AMOUNT }, key('bug-1'));
      expect(again.status).toBe(500);
      expect(again.replayed).toBe('true');
      expect(again.body.equals(failed.body)).toBe(true);
    });

    it('when a guard refuses a request, then nothing is journaled: the retry the guard allows is applied', async () => {
      const denied = await post(
        'accounts/g-1/deposit',
        { amount: 3 },
        { ...key('guarded-1'), 'x-deny': '1' },
      );
      expect(denied.status).toBe(403);
      expect(denied.replayed).toBeNull();
      const allowed = await post('accounts/g-1/deposit', { amount: 3 }, key('guarded-1'));
      expect(allowed.status).toBe(201);
      expect(allowed.replayed).toBe('false');
      expect(await account('g-1')).toMatchObject({ balance: 3 });
    });

    it("when a pipe refuses the body, then nothing is journaled; when it reads two spellings as one, then they are one request (the pipe's output is journaled and fingerprinted)", async () => {
      const refused = await post('accounts/pipe-1/deposit', { amount: 'many' }, key('piped-1'));
      expect(refused.status).toBe(400);
      expect(refused.replayed).toBeNull();
      const asText = await post('accounts/pipe-1/deposit', { amount: '6' }, key('piped-1'));
      expect(asText.status).toBe(201);
      expect(asText.replayed).toBe('false');
      const asNumber = await post('accounts/pipe-1/deposit', { amount: 6 }, key('piped-1'));
      expect(asNumber.replayed).toBe('true');
      expect(asNumber.body.equals(asText.body)).toBe(true);
      expect(await account('pipe-1')).toMatchObject({ balance: 6, applied: 1 });
    });

    it('when the app restarts on the same data directory, then a retry still gets the first response, replayed', async () => {
      await ledger!.app.close();
      ledger = undefined;
      ledger = await startHttpLedgerApp(platform, dataDir, journalWrites);
      const retry = await post('accounts/a-1/deposit', { amount: 50 }, key('deposit-1'));
      expect(retry.status).toBe(201);
      expect(retry.replayed).toBe('true');
      expect(retry.body.equals(first.body)).toBe(true);
      expect(await account('a-1')).toMatchObject({ balance: 50 });
    });
  },
);
