import { EvictionReason } from '@once/protocol';
import { type SessionBinding } from './session-binding';
import {
  CLIENT_NOT_BOUND_DETAIL,
  type FenceVerdict,
  type ResumeVerdict,
  type SessionFacts,
  fenceVerdict,
  resumeVerdict,
} from './session-verdict';

/**
 * PROTOCOL.md's session rules, row by row: the resume lookup (implicit
 * rebind, NOT_BOUND) and then the epoch fence (the COMMAND table's first
 * rows, INVALID_REQUEST for a header naming another client than the
 * connection's), judged the way the gateway and the guards judge them: the
 * fence sees the connection's binding after the resume lookup.
 */

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const ALICE = 7;

type Entry = NonNullable<SessionFacts['entry']>;

interface Row {
  /** What the connection holds before the request. */
  readonly binding?: SessionBinding;
  /** The header's client, session and request. */
  readonly header: { readonly client: string; readonly session: number; readonly request: number };
  /** The table's entry for the header's client. */
  readonly entry?: Entry;
  /** Whether the header's resume token verifies for (client, session). */
  readonly token: 'valid' | 'invalid';
  /** What the node remembers of a client without an entry. */
  readonly gone?: EvictionReason;
  readonly resume: ResumeVerdict;
  /** The fence's verdict; none after NOT_BOUND (the request is answered there). */
  readonly fence?: FenceVerdict;
  /** How often the resume token (an HMAC) was checked. */
  readonly tokenChecks: 0 | 1;
}

const entry = (epoch: number, watermark = 4): Entry => ({ epoch, watermark, userId: ALICE });
const bound = (client: string, epoch: number): SessionBinding => ({ client, epoch, userId: ALICE });
const evicted = (reason: EvictionReason, watermark: number): FenceVerdict => ({
  kind: 'evicted',
  reason,
  watermark,
});

const ROWS: ReadonlyArray<readonly [string, Row]> = [
  [
    'a bound connection, the header naming its session at the table’s epoch',
    {
      binding: bound(A, 5),
      header: { client: A, session: 5, request: 3 },
      entry: entry(5),
      token: 'invalid',
      resume: { kind: 'bound' },
      fence: { kind: 'pass' },
      tokenChecks: 0,
    },
  ],
  [
    'a bound connection whose header names another client',
    {
      binding: bound(A, 5),
      header: { client: B, session: 5, request: 3 },
      entry: entry(5),
      token: 'valid',
      resume: { kind: 'bound' },
      fence: { kind: 'invalid-request', detail: CLIENT_NOT_BOUND_DETAIL },
      tokenChecks: 0,
    },
  ],
  [
    'a bound connection whose header names another client that has no entry (the client check comes first)',
    {
      binding: bound(A, 5),
      header: { client: B, session: 5, request: 3 },
      token: 'valid',
      gone: EvictionReason.NoSession,
      resume: { kind: 'bound' },
      fence: { kind: 'invalid-request', detail: CLIENT_NOT_BOUND_DETAIL },
      tokenChecks: 0,
    },
  ],
  [
    'a bound connection fenced by a REGISTER elsewhere, even though the header names the current epoch',
    {
      binding: bound(A, 5),
      header: { client: A, session: 8, request: 3 },
      entry: entry(8, 6),
      token: 'valid',
      resume: { kind: 'bound' },
      fence: evicted(EvictionReason.SessionTooLow, 6),
      tokenChecks: 0,
    },
  ],
  [
    'a bound connection whose header names an epoch below the table’s',
    {
      binding: bound(A, 8),
      header: { client: A, session: 5, request: 3 },
      entry: entry(8, 6),
      token: 'invalid',
      resume: { kind: 'bound' },
      fence: evicted(EvictionReason.SessionTooLow, 6),
      tokenChecks: 0,
    },
  ],
  [
    'a bound connection whose header names an epoch above the table’s',
    {
      binding: bound(A, 5),
      header: { client: A, session: 9, request: 3 },
      entry: entry(5, 2),
      token: 'invalid',
      resume: { kind: 'bound' },
      fence: { kind: 'epoch-ahead', watermark: 2 },
      tokenChecks: 0,
    },
  ],
  [
    'a bound connection whose session logged out or was evicted (no entry)',
    {
      binding: bound(A, 5),
      header: { client: A, session: 5, request: 3 },
      token: 'valid',
      gone: EvictionReason.NoSession,
      resume: { kind: 'bound' },
      fence: evicted(EvictionReason.NoSession, 0),
      tokenChecks: 0,
    },
  ],
  [
    'a bound connection whose session expired',
    {
      binding: bound(A, 5),
      header: { client: A, session: 5, request: 3 },
      token: 'invalid',
      gone: EvictionReason.Expired,
      resume: { kind: 'bound' },
      fence: evicted(EvictionReason.Expired, 0),
      tokenChecks: 0,
    },
  ],
  [
    'an unbound connection with a valid token for the table’s epoch (implicit rebind)',
    {
      header: { client: A, session: 5, request: 3 },
      entry: entry(5),
      token: 'valid',
      resume: { kind: 'resume', binding: bound(A, 5) },
      fence: { kind: 'pass' },
      tokenChecks: 1,
    },
  ],
  [
    'an unbound connection with a valid token for an older epoch',
    {
      header: { client: A, session: 5, request: 3 },
      entry: entry(8, 6),
      token: 'valid',
      resume: { kind: 'unbound-token' },
      fence: evicted(EvictionReason.SessionTooLow, 6),
      tokenChecks: 1,
    },
  ],
  [
    'an unbound connection with a valid token for an epoch newer than the table’s',
    {
      header: { client: A, session: 9, request: 3 },
      entry: entry(5, 2),
      token: 'valid',
      resume: { kind: 'unbound-token' },
      fence: { kind: 'epoch-ahead', watermark: 2 },
      tokenChecks: 1,
    },
  ],
  [
    'an unbound connection with a valid token of a session that has no entry',
    {
      header: { client: A, session: 5, request: 3 },
      token: 'valid',
      gone: EvictionReason.NoSession,
      resume: { kind: 'unbound-token' },
      fence: evicted(EvictionReason.NoSession, 0),
      tokenChecks: 1,
    },
  ],
  [
    'an unbound connection with a valid token of a session that expired',
    {
      header: { client: A, session: 5, request: 3 },
      token: 'valid',
      gone: EvictionReason.Expired,
      resume: { kind: 'unbound-token' },
      fence: evicted(EvictionReason.Expired, 0),
      tokenChecks: 1,
    },
  ],
  [
    'an unbound connection whose token does not verify, for a session that exists',
    {
      header: { client: A, session: 5, request: 3 },
      entry: entry(5),
      token: 'invalid',
      resume: { kind: 'not-bound' },
      tokenChecks: 1,
    },
  ],
  [
    'an unbound connection whose token does not verify, for a session that does not exist (same answer)',
    {
      header: { client: A, session: 5, request: 3 },
      token: 'invalid',
      gone: EvictionReason.Expired,
      resume: { kind: 'not-bound' },
      tokenChecks: 1,
    },
  ],
  [
    'an unbound connection with session 0, even with a token that would verify',
    {
      header: { client: A, session: 0, request: 3 },
      entry: entry(5),
      token: 'valid',
      resume: { kind: 'not-bound' },
      tokenChecks: 0,
    },
  ],
  [
    'an unbound connection with request 0, even with a valid token for the table’s epoch',
    {
      header: { client: A, session: 5, request: 0 },
      entry: entry(5),
      token: 'valid',
      resume: { kind: 'not-bound' },
      tokenChecks: 0,
    },
  ],
];

type Given = Pick<Row, 'binding' | 'header' | 'entry' | 'token' | 'gone'>;

/** The facts of `row`, counting the resume-token and gone-reason look-ups. */
function factsOf(row: Given, binding = row.binding) {
  const calls = { tokenValid: 0, goneReason: 0 };
  const facts: SessionFacts = {
    ...row.header,
    binding,
    entry: row.entry,
    tokenValid: () => {
      calls.tokenValid++;
      return row.token === 'valid';
    },
    goneReason: () => {
      calls.goneReason++;
      if (row.gone === undefined) throw new Error('goneReason asked although the entry exists');
      return row.gone;
    },
  };
  return { facts, calls };
}

describe('the session rules of PROTOCOL.md (resumeVerdict, then fenceVerdict)', () => {
  it.each(ROWS)(
    'given %s, then the resume lookup and the fence answer as the table says',
    (_, row) => {
      const { facts, calls } = factsOf(row);
      const resume = resumeVerdict(facts);
      expect(resume).toEqual(row.resume);
      expect(calls.tokenValid).toBe(row.tokenChecks);

      if (resume.kind === 'not-bound') {
        expect(row.fence).toBeUndefined();
        return;
      }
      // The fence judges the connection as the resume lookup left it.
      const after = factsOf(row, resume.kind === 'resume' ? resume.binding : row.binding);
      expect(fenceVerdict(after.facts)).toEqual(row.fence);
      // The fence never checks a token: that was the resume lookup's business.
      expect(after.calls.tokenValid).toBe(0);
      // Why a session is gone is asked only to answer its EVICTION.
      expect(after.calls.goneReason).toBe(row.fence?.kind === 'evicted' && !row.entry ? 1 : 0);
    },
  );

  it('given a bound connection, then the resume token is never checked (it is an HMAC)', () => {
    const tokenValid = jest.fn(() => {
      throw new Error('the token of a bound connection was checked');
    });
    const facts: SessionFacts = {
      client: A,
      session: 5,
      request: 1,
      binding: bound(A, 5),
      entry: entry(5),
      tokenValid,
      goneReason: () => EvictionReason.NoSession,
    };
    expect(resumeVerdict(facts)).toEqual({ kind: 'bound' });
    expect(fenceVerdict(facts)).toEqual({ kind: 'pass' });
    expect(tokenValid).not.toHaveBeenCalled();
  });

  it('given a resume, then the binding is the entry’s user under the table’s epoch', () => {
    const { facts } = factsOf({
      header: { client: A, session: 5, request: 1 },
      entry: { epoch: 5, watermark: 0, userId: 42 },
      token: 'valid',
    });
    expect(resumeVerdict(facts)).toEqual({
      kind: 'resume',
      binding: { client: A, epoch: 5, userId: 42 },
    });
  });
});
