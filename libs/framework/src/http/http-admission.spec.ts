import { Body, Controller, Post } from '@nestjs/common';
import { type HttpRequestDraft, type HttpSubmitResult } from '@once/engine/internal';
import { answerFor } from './http-admission';
import { type HttpNode, bindHttpHost } from './http-node';
import { type IdempotentMetadata, Idempotent } from './idempotent.decorator';
import { ONCE_HTTP_METADATA } from '../once.constants';

@Controller('ledger')
class Ledger {
  @Post('deposit')
  @Idempotent()
  deposit(@Body() body: { amount: number }) {
    return body;
  }
}

/** A node that records what it is asked to journal and answers `result`. */
class RecordingNode implements HttpNode {
  readonly submitted: HttpRequestDraft[] = [];
  constructor(
    readonly writable: boolean,
    readonly leader: string | null,
    readonly serving = true,
    readonly phase = 'ready',
    private readonly result: HttpSubmitResult = { kind: 'in-flight' },
  ) {}
  submitHttp(request: HttpRequestDraft): Promise<HttpSubmitResult> {
    this.submitted.push(request);
    return Promise.resolve(this.result);
  }
}

function admit(node: RecordingNode, headers: Record<string, string>, user?: unknown) {
  const controller = new Ledger();
  bindHttpHost(controller, { httpNode: () => node, httpOptions: {} });
  const handler = Ledger.prototype.deposit as unknown as object;
  const metadata = Reflect.getMetadata(ONCE_HTTP_METADATA, handler) as IdempotentMetadata;
  const request = { headers, user };
  return answerFor(controller, handler, metadata, [{ amount: 5 }, request, {}], request);
}

const body = (answer: { body: Buffer | undefined }) =>
  JSON.parse(answer.body!.toString()) as { code: string; message: string };

describe('the admission of an @Idempotent request', () => {
  it('answers a follower 503 NOT_LEADER with Retry-After and the leader in Once-Leader, journaling nothing', async () => {
    const node = new RecordingNode(false, '10.0.0.2:7400');
    const answer = await admit(node, { 'idempotency-key': '"k-1"' });
    expect(answer.status).toBe(503);
    expect(answer.headers).toEqual({ 'Retry-After': '1', 'Once-Leader': '10.0.0.2:7400' });
    expect(body(answer).code).toBe('NOT_LEADER');
    expect(node.submitted).toEqual([]);
  });

  it('names no leader when the follower knows none', async () => {
    const answer = await admit(new RecordingNode(false, null), { 'idempotency-key': 'k-1' });
    expect(answer.status).toBe(503);
    expect(answer.headers).toEqual({ 'Retry-After': '1' });
  });

  it('answers 503 NOT_READY while the node replays', async () => {
    const node = new RecordingNode(true, null, false, 'replaying');
    const answer = await admit(node, { 'idempotency-key': 'k-1' });
    expect(answer.status).toBe(503);
    expect(body(answer)).toEqual({
      code: 'NOT_READY',
      message: 'the node is replaying; retry later',
    });
  });

  it('checks the key before the node: a bad key is 400 on a follower too', async () => {
    const answer = await admit(new RecordingNode(false, 'leader:1'), {});
    expect(answer.status).toBe(400);
    expect(body(answer).code).toBe('IDEMPOTENCY_KEY_MISSING');
  });

  it('submits the key scoped to the principal and the route, the JSON data and its fingerprint', async () => {
    const node = new RecordingNode(true, null);
    await admit(node, { 'idempotency-key': '"k-1"' }, { id: 7 });
    expect(node.submitted).toHaveLength(1);
    const [draft] = node.submitted;
    expect(draft).toMatchObject({
      scope: 'user 7|POST /ledger/deposit',
      key: 'k-1',
      userId: 7,
      pattern: 'http:POST /ledger/deposit',
      data: [{ amount: 5 }],
      status: 201,
      refusalStatus: 422,
    });
    expect(draft.fingerprint).toHaveLength(16);
  });

  it('answers the same request in flight 409 with Retry-After', async () => {
    const answer = await admit(new RecordingNode(true, null), { 'idempotency-key': 'k-1' });
    expect(answer.status).toBe(409);
    expect(answer.headers).toEqual({ 'Retry-After': '1' });
    expect(body(answer).code).toBe('IDEMPOTENCY_KEY_IN_FLIGHT');
  });
});
