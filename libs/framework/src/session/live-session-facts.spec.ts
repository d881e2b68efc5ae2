import { type ClientEntry } from '@once/client-table/internal';
import { type ClientId, Command, EvictionReason, Operation } from '@once/protocol';
import { ZERO_CHECKSUM, encodeFrame, frameFromBytes } from '@once/protocol/internal';
import { OnceRpcContext } from './once-rpc-context';
import { type SessionBinding } from './session-binding';
import { type SessionGate } from './session-gate';
import { fenceVerdict, resumeVerdict } from './session-verdict';

/**
 * The facts the session rules judge a request by, as a request's context
 * gives them: the header's fields as sent, the connection's binding and the
 * table's entry as they stand when a rule reads them, the token checked
 * only when a rule asks.
 */

const A: ClientId = 'a'.repeat(32);
const TOKEN = Buffer.alloc(16, 7);

/** A gate over a table held in a map, counting the token checks it is asked for. */
class TableGate implements SessionGate {
  readonly entries = new Map<ClientId, ClientEntry>();
  readonly tokenChecks: Array<[ClientId, number, Buffer]> = [];
  gone = EvictionReason.NoSession;

  tableEntry(client: ClientId): ClientEntry | undefined {
    return this.entries.get(client);
  }
  goneReason(): EvictionReason {
    return this.gone;
  }
  verifyResumeToken(client: ClientId, session: number, token: Uint8Array): boolean {
    this.tokenChecks.push([client, session, Buffer.from(token)]);
    return Buffer.from(token).equals(TOKEN);
  }
  bindResumed(): void {}
}

const entry = (epoch: number, watermark: number): ClientEntry => ({
  client: A,
  userId: 9,
  epoch,
  watermark,
  watermarkChecksum: ZERO_CHECKSUM,
  latestCommitOp: epoch,
  latestCommitTimestamp: 0n,
  replies: [],
});

function contextOf(gate: TableGate, connection: { binding: SessionBinding | undefined }) {
  const frame = encodeFrame(
    {
      command: Command.Request,
      operation: Operation.Command,
      client: A,
      session: 5,
      request: 3,
      resumeToken: TOKEN,
    },
    '{}',
  );
  return new OnceRpcContext(
    {
      id: 1,
      remote: '127.0.0.1:1',
      get binding() {
        return connection.binding;
      },
    },
    frameFromBytes(frame),
    'p',
    gate,
  );
}

describe('a request context’s session facts', () => {
  it('gives the header’s client, session and request', () => {
    const facts = contextOf(new TableGate(), { binding: undefined }).sessionFacts();
    expect([facts.client, facts.session, facts.request]).toEqual([A, 5, 3]);
  });

  it('is one object per request, which reads the table and the binding as they stand now', () => {
    const gate = new TableGate();
    const connection: { binding: SessionBinding | undefined } = { binding: undefined };
    const context = contextOf(gate, connection);
    const facts = context.sessionFacts();
    expect(facts.entry).toBeUndefined();
    expect(facts.binding).toBeUndefined();

    gate.entries.set(A, entry(5, 2));
    connection.binding = { client: A, epoch: 5, userId: 9 };

    expect(context.sessionFacts()).toBe(facts);
    expect(facts.entry).toMatchObject({ epoch: 5, watermark: 2 });
    expect(facts.binding).toEqual({ client: A, epoch: 5, userId: 9 });
    expect(fenceVerdict(facts)).toEqual({ kind: 'pass' });

    gate.entries.set(A, entry(6, 0));
    expect(fenceVerdict(facts)).toEqual({
      kind: 'evicted',
      reason: EvictionReason.SessionTooLow,
      watermark: 0,
    });
  });

  it('checks the header’s resume token for its client and session, only when a rule asks', () => {
    const gate = new TableGate();
    gate.entries.set(A, entry(5, 2));
    const bound = contextOf(gate, { binding: { client: A, epoch: 5, userId: 9 } });
    expect(resumeVerdict(bound.sessionFacts())).toEqual({ kind: 'bound' });
    expect(gate.tokenChecks).toEqual([]);

    const unbound = contextOf(gate, { binding: undefined });
    expect(resumeVerdict(unbound.sessionFacts())).toEqual({
      kind: 'resume',
      binding: { client: A, epoch: 5, userId: 9 },
    });
    expect(gate.tokenChecks).toEqual([[A, 5, TOKEN]]);
  });

  it('asks the gate why a session without an entry is gone', () => {
    const gate = new TableGate();
    gate.gone = EvictionReason.Expired;
    const facts = contextOf(gate, { binding: { client: A, epoch: 5, userId: 9 } }).sessionFacts();
    expect(fenceVerdict(facts)).toEqual({
      kind: 'evicted',
      reason: EvictionReason.Expired,
      watermark: 0,
    });
  });
});
