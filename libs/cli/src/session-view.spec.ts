import { ClientTable } from '@once/client-table/internal';
import { Command, Operation, Status } from '@once/protocol';
import { ZERO_CHECKSUM, encodeFrame, okBody } from '@once/protocol/internal';
import { REDACTED } from './redact';
import { requestAnswer, requestAnswerLines, sessionLines, sessionView } from './session-view';

const CLIENT = 'abcdef0123456789abcdef0123456789';
const T0 = 1_700_000_000_000_000_000n;

/** A table holding one session (epoch 1) with requests 1..`requests` applied at ops 2.., ring 2. */
function tableWith(requests: number): ClientTable {
  const table = new ClientTable({ capacity: 4, ring: 2 });
  table.commitRegister(1, T0, CLIENT, 9);
  for (let request = 1; request <= requests; request++) {
    const op = request + 1;
    const reply = encodeFrame(
      {
        command: Command.Reply,
        operation: Operation.Command,
        status: Status.Ok,
        client: CLIENT,
        session: 1,
        request,
        op,
        commit: op,
        timestamp: T0 + BigInt(op),
        watermark: request,
      },
      okBody({ balance: request * 10, resumeToken: 'do-not-print' }),
    );
    table.commitReply(op, T0 + BigInt(op), CLIENT, 1, request, ZERO_CHECKSUM, reply);
  }
  return table;
}

describe('sessionView', () => {
  it('shows the epoch, owner, watermark, latest commit and the ring by request number and size', () => {
    const view = sessionView(tableWith(3).get(CLIENT)!);
    expect(view).toMatchObject({
      client: CLIENT,
      userId: 9,
      epoch: 1,
      watermark: 3,
      latestCommitOp: 4,
    });
    expect(view.replies.map((reply) => reply.request)).toEqual([2, 3]);
    expect(view.replies.every((reply) => reply.bytes > 128)).toBe(true);
    expect(sessionLines(view).join('\n')).toMatch(
      /watermark\s+3\n.*op 4.*\ncached replies\s+#2 \d+ B, #3 \d+ B/,
    );
  });
});

describe('requestAnswer', () => {
  const entry = tableWith(3).get(CLIENT)!;

  it('answers a request still in the ring with its decoded reply, credentials redacted', () => {
    const answer = requestAnswer(entry, 3);
    expect(answer).toMatchObject({ applied: true, verdict: 'cached', watermark: 3 });
    expect(answer.reply).toMatchObject({
      status: 'OK',
      op: 4,
      watermark: 3,
      body: { ok: true, result: { balance: 30, resumeToken: REDACTED } },
    });
    const text = requestAnswerLines(answer).join('\n');
    expect(text).toMatch(/^request 3 of .*: APPLIED at op 4/);
    expect(text).not.toContain('do-not-print');
  });

  it('says a request below the ring was applied though its reply is gone', () => {
    expect(requestAnswer(entry, 1)).toMatchObject({
      applied: true,
      verdict: 'applied-not-cached',
      reply: null,
    });
  });

  it('says a request above the watermark was not applied', () => {
    const answer = requestAnswer(entry, 4);
    expect(answer).toMatchObject({ applied: false, verdict: 'not-applied', reply: null });
    expect(requestAnswerLines(answer)[0]).toMatch(/NOT APPLIED \(watermark 3\)/);
  });
});
