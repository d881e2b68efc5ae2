import { InvalidEntryError } from '@once/journal';
import { type ApplyOutcome } from './apply-outcome';
import { EngineUnavailableError } from './engine-unavailable.error';
import { type HttpRequestDraft, type HttpSubmitResult } from './http/http-request';
import { httpRequestEntryDraft } from './http/http-request-body';
import {
  type TestNode,
  startTestNode,
  submit,
  tempDataDir,
} from './__fixtures__/test-node.fixture';

const MS = 1_000_000n;
const START_NS = 1_700_000_000_000n * MS;
const RETENTION_MS = 1_000;

/** A request of the sample modules' `kv.put` as an HTTP endpoint would journal it. */
function put(key: string, value: string, fingerprint = 1): HttpRequestDraft {
  return request(key, 'kv.put', { key: 'k', value }, fingerprint);
}

function request(key: string, pattern: string, data: unknown, fingerprint = 1): HttpRequestDraft {
  return {
    scope: 'user 7|POST /kv',
    key,
    fingerprint: Buffer.alloc(16, fingerprint),
    userId: 7,
    pattern,
    data,
    status: 201,
    refusalStatus: 422,
  };
}

function bodyText(result: HttpSubmitResult): string {
  if (result.kind !== 'applied' && result.kind !== 'replayed') {
    throw new Error(`no response: ${result.kind}`);
  }
  return result.response.body.toString();
}

describe('Engine.submitHttp (exactly-once HTTP requests)', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let test: TestNode;
  /** Journal time: moved by the tests, never read from the wall clock. */
  const clock = { now: START_NS };

  async function start(settings: { httpKeysMax?: number } = {}, ignoreSnapshots = false) {
    test = await startTestNode(dir, {
      settings: { httpKeyRetentionMs: RETENTION_MS, httpKeysMax: 100, ...settings },
      journal: { clock: () => clock.now },
      ignoreSnapshots,
    });
  }

  beforeEach(async () => {
    ({ dir, cleanup } = await tempDataDir());
    clock.now = START_NS;
    await start();
  });

  afterEach(async () => {
    await test.node.stop();
    await cleanup();
  });

  it('given a new key, when submitted, then it applies once and answers the success status with the result as JSON', async () => {
    const result = await test.engine.submitHttp(put('a', 'v1'));
    expect(result.kind).toBe('applied');
    if (result.kind !== 'applied') return;
    expect(result.response.status).toBe(201);
    expect(bodyText(result)).toBe('{"previous":null}');
    expect(result.response.op).toBe(test.engine.commitOp);
    expect(test.modules.kv.map.get('k')).toBe('v1');
    expect(test.engine.httpKeyCount).toBe(1);
    expect(test.engine.httpInFlightCount).toBe(0);
  });

  it("given a route with an admission step, when a new key comes, then the step's output is journaled once and a retry is known by the request's own fingerprint", async () => {
    // kv.sealed's admission step adds a random nonce: another value at every run.
    const first = await test.engine.submitHttp(request('s', 'kv.sealed', { key: 'k', value: 'v' }));
    expect(first.kind).toBe('applied');
    const stored = test.modules.kv.map.get('k');
    expect(stored).toMatch(/^v:[0-9a-f]{8}$/);
    const commitOp = test.engine.commitOp;

    const retry = await test.engine.submitHttp(request('s', 'kv.sealed', { key: 'k', value: 'v' }));

    expect(retry).toEqual({
      kind: 'replayed',
      response: (first as { response: unknown }).response,
    });
    expect(bodyText(retry)).toBe(JSON.stringify({ stored }));
    expect(test.engine.commitOp).toBe(commitOp);
  });

  it('given a route with an admission step, when the step refuses, then the refusal is answered, nothing is journaled, and a retry runs the step again', async () => {
    const commitOp = test.engine.commitOp;
    const refused = await test.engine.submitHttp(
      request('v', 'kv.vetted', { key: 'k', value: 'bad' }),
    );
    expect(refused).toEqual({
      kind: 'refused',
      response: {
        status: 422,
        body: Buffer.from('{"code":"KV_VALUE_REFUSED","message":"the value is refused"}'),
        op: 0,
      },
    });
    const failed = await test.engine.submitHttp(
      request('w', 'kv.vetted', { key: 'k', value: 'crash' }),
    );
    expect(failed.kind).toBe('refused');
    const failure = (failed as { response: { status: number; body: Buffer } }).response;
    expect(failure.status).toBe(500);
    expect(JSON.parse(failure.body.toString())).toMatchObject({ code: 'ADMISSION_FAILED' });
    expect(failure.body.toString()).not.toMatch(/secret/);
    expect(test.engine.commitOp).toBe(commitOp);
    expect(test.engine.httpKeyCount).toBe(0);
    expect(test.engine.httpInFlightCount).toBe(0);

    // The same key with a value the step takes: a new request, journaled.
    const accepted = await test.engine.submitHttp(
      request('v', 'kv.vetted', { key: 'k', value: 'ok' }, 2),
    );
    expect(accepted.kind).toBe('applied');
    expect(test.modules.kv.map.get('k')).toBe('ok');
  });

  it('given a done key, when the same request comes again, then it is answered the first response and nothing is journaled', async () => {
    const first = await test.engine.submitHttp(put('a', 'v1'));
    const commitOp = test.engine.commitOp;
    const again = await test.engine.submitHttp(put('a', 'v1'));
    expect(again).toEqual({
      kind: 'replayed',
      response: (first as { response: unknown }).response,
    });
    expect(test.engine.commitOp).toBe(commitOp);
    expect(test.modules.kv.map.get('k')).toBe('v1');
  });

  it('given a done key, when another request (another fingerprint) reuses it, then it is a mismatch and nothing is journaled', async () => {
    await test.engine.submitHttp(put('a', 'v1'));
    const commitOp = test.engine.commitOp;
    expect(await test.engine.submitHttp(put('a', 'v2', 2))).toEqual({ kind: 'mismatch' });
    expect(test.engine.commitOp).toBe(commitOp);
    expect(test.modules.kv.map.get('k')).toBe('v1');
  });

  it('given a key being applied, when the same request comes, then it is in flight, or waits for the first result as a replay; another fingerprint is a mismatch', async () => {
    const first = test.engine.submitHttp(put('a', 'v1'));
    expect(test.engine.httpInFlightCount).toBe(1);
    const conflict = test.engine.submitHttp(put('a', 'v1'));
    const waiting = test.engine.submitHttp(put('a', 'v1'), { waitInFlight: true });
    const other = test.engine.submitHttp(put('a', 'v2', 2), { waitInFlight: true });
    expect(await conflict).toEqual({ kind: 'in-flight' });
    expect(await other).toEqual({ kind: 'mismatch' });
    const applied = await first;
    expect(applied.kind).toBe('applied');
    expect(await waiting).toEqual({
      kind: 'replayed',
      response: (applied as { response: unknown }).response,
    });
    expect(test.engine.httpInFlightCount).toBe(0);
    expect(test.modules.kv.map.get('k')).toBe('v1');
  });

  it('given the same key journaled twice (a race admission could not see), then the second entry changes nothing: the same request gets the first response, another a 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const first = await submit(test.engine, httpRequestEntryDraft(put('a', 'v1')));
    const same = await submit(test.engine, httpRequestEntryDraft(put('a', 'v1')));
    const other = await submit(test.engine, httpRequestEntryDraft(put('a', 'v2', 2)));
    expect(first.http?.kind).toBe('applied');
    expect(same.http).toEqual({
      kind: 'duplicate',
      response: first.http!.response,
      duplicate: true,
    });
    expect(other.http?.kind).toBe('mismatch');
    expect(other.http?.response.status).toBe(422);
    expect(JSON.parse(other.http!.response.body.toString())).toEqual({
      code: 'IDEMPOTENCY_KEY_REUSED',
      message: expect.any(String) as string,
    });
    expect(test.modules.kv.map.get('k')).toBe('v1');
    expect(test.engine.httpKeyCount).toBe(1);
  });

  it('given an entry journaled without admission, when submitHttp journals the same key before it applied, then it resolves with the first response as a replay', async () => {
    const raced = new Promise<ApplyOutcome>((resolve) => {
      test.engine.submit(httpRequestEntryDraft(put('a', 'v1')), resolve);
    });
    const mine = test.engine.submitHttp(put('a', 'v1'));
    const first = await raced;
    expect(await mine).toEqual({ kind: 'replayed', response: first.http!.response });
  });

  it('given an apply step that refuses with a CommandError, then the refusal status and {code, message} are answered, recorded, and replayed', async () => {
    const refused = await test.engine.submitHttp(request('r', 'kv.refuse', {}));
    expect(refused.kind).toBe('applied');
    if (refused.kind !== 'applied') return;
    expect(refused.response.status).toBe(422);
    expect(bodyText(refused)).toBe('{"code":"KV_REFUSED","message":"refused on purpose"}');
    expect(await test.engine.submitHttp(request('r', 'kv.refuse', {}))).toEqual({
      kind: 'replayed',
      response: refused.response,
    });
  });

  it.each([
    ['kv.crash', 'HANDLER_FAILED'],
    ['kv.async', 'ASYNC_HANDLER'],
    ['no.such.pattern', 'UNKNOWN_PATTERN'],
  ])(
    'given an apply step %s, then 500 with the code %s, recorded like any response',
    async (pattern, code) => {
      const failed = await test.engine.submitHttp(request('f', pattern, {}));
      expect(failed.kind).toBe('applied');
      if (failed.kind !== 'applied') return;
      expect(failed.response.status).toBe(500);
      expect(JSON.parse(bodyText(failed))).toEqual({ code, message: expect.any(String) as string });
      expect((await test.engine.submitHttp(request('f', pattern, {}))).kind).toBe('replayed');
    },
  );

  it('given a key older than the retention by journal time, when the next entry applies, then the key is forgotten and a retry applies again', async () => {
    const first = await test.engine.submitHttp(put('a', 'v1'));
    clock.now += BigInt(RETENTION_MS - 1) * MS;
    await test.engine.submitHttp(put('b', 'v2'));
    // Not yet past the retention: still remembered.
    expect((await test.engine.submitHttp(put('a', 'v1'))).kind).toBe('replayed');
    clock.now += 2n * MS;
    // Any entry applying at a time past the retention forgets it first.
    await test.engine.submitHttp(put('c', 'v3'));
    expect(test.engine.httpKeyCount).toBe(2);
    const again = await test.engine.submitHttp(put('a', 'v1'));
    expect(again.kind).toBe('applied');
    expect((again as { response: { op: number } }).response.op).toBeGreaterThan(
      (first as { response: { op: number } }).response.op,
    );
    expect(test.engine.httpEarlyForgets).toBe(0);
  });

  it('given httpKeysMax keys, when a new key applies, then the oldest is forgotten early (counted) and a retry of it applies again', async () => {
    await test.node.stop();
    await start({ httpKeysMax: 2 });
    await test.engine.submitHttp(put('a', '1'));
    await test.engine.submitHttp(put('b', '2'));
    await test.engine.submitHttp(put('c', '3'));
    expect(test.engine.httpKeyCount).toBe(2);
    expect(test.engine.httpEarlyForgets).toBe(1);
    expect((await test.engine.submitHttp(put('c', '3'))).kind).toBe('replayed');
    expect((await test.engine.submitHttp(put('a', '1'))).kind).toBe('applied');
    expect(test.engine.httpEarlyForgets).toBe(2);
  });

  it('given a BOOT that lowers httpKeysMax, then the oldest keys over it are forgotten at that entry', async () => {
    for (const key of ['a', 'b', 'c']) await test.engine.submitHttp(put(key, key));
    await test.node.stop();
    await start({ httpKeysMax: 1 });
    expect(test.engine.settings.httpKeysMax).toBe(1);
    expect(test.engine.httpKeyCount).toBe(1);
    expect((await test.engine.submitHttp(put('c', 'c'))).kind).toBe('replayed');
  });

  it('given a restart, from the snapshot or replaying from op 1, then the keys and their responses are the same', async () => {
    const first = await test.engine.submitHttp(put('a', 'v1'));
    const refused = await test.engine.submitHttp(request('r', 'kv.refuse', {}));
    // The stop journals a REPLY_CHECK: the keys, not the whole state, are compared.
    const keys = test.engine.applier.httpKeys.encode();
    await test.node.stop();
    await start();
    expect(test.engine.lastSnapshotOp).toBeGreaterThan(0);
    expect(test.engine.applier.httpKeys.encode()).toEqual(keys);
    expect(await test.engine.submitHttp(put('a', 'v1'))).toEqual({
      kind: 'replayed',
      response: (first as { response: unknown }).response,
    });
    await test.node.stop({ snapshot: false });
    await start({}, true);
    expect(test.engine.applier.restoredOp).toBe(0);
    expect(test.engine.applier.httpKeys.encode()).toEqual(keys);
    expect(await test.engine.submitHttp(request('r', 'kv.refuse', {}))).toEqual({
      kind: 'replayed',
      response: (refused as { response: unknown }).response,
    });
  });

  it('rejects a fingerprint that is not 16 bytes, journaling nothing', async () => {
    const commitOp = test.engine.commitOp;
    await expect(
      test.engine.submitHttp({ ...put('a', 'v'), fingerprint: Buffer.alloc(4) }),
    ).rejects.toThrow(InvalidEntryError);
    expect(test.engine.httpInFlightCount).toBe(0);
    expect(test.engine.commitOp).toBe(commitOp);
  });

  it('given a stopped node, then it rejects as submit throws, and nothing stays in flight', async () => {
    await test.node.stop();
    await expect(test.engine.submitHttp(put('a', 'v'))).rejects.toThrow(EngineUnavailableError);
    expect(test.engine.httpInFlightCount).toBe(0);
    await start();
  });

  it('given the end of a term before the entry applied, then the submitter and those waiting hear the error', async () => {
    const first = test.engine.submitHttp(put('a', 'v1'));
    const waiting = test.engine.submitHttp(put('a', 'v1'), { waitInFlight: true });
    const error = new Error('term ended');
    test.engine.endTerm(error);
    await expect(first).rejects.toBe(error);
    await expect(waiting).rejects.toBe(error);
    expect(test.engine.httpInFlightCount).toBe(0);
  });
});
