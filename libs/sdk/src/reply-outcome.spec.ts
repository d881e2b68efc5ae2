import { errorBody, okBody } from '@once/protocol/internal';
import { type Frame, type FrameHeader, Status } from '@once/protocol';
import { AlreadyAppliedError } from './errors/already-applied.error';
import { CommandRefusedError } from './errors/command-refused.error';
import { InvalidReplyError } from './errors/invalid-reply.error';
import { commandOutcome, queryOutcome, type ReplyOutcome } from './reply-outcome';

/** A reply as the session driver gets it; only the fields the outcome reads are set. */
function reply(status: Status, body: Buffer, request = 7): Frame {
  const header = { status, request } as unknown as FrameHeader;
  return { header, raw: body, body };
}

/** The error of a refused outcome (fails the test when it is a result). */
function errorOf(outcome: ReplyOutcome): Error {
  if (outcome.ok) throw new Error(`expected an error, got ${JSON.stringify(outcome.result)}`);
  return outcome.error;
}

describe('reply outcomes', () => {
  it('gives an OK reply the handler result, or its refusal with the RpcException payload', () => {
    expect(commandOutcome(reply(Status.Ok, okBody({ balance: 3 })), 'ledger.deposit')).toEqual({
      ok: true,
      result: { balance: 3 },
    });
    const refused = commandOutcome(
      reply(Status.Ok, errorBody('NO_FUNDS', 'balance 0', { need: 5 })),
      'ledger.withdraw',
    );
    const error = errorOf(refused);
    expect(error).toBeInstanceOf(CommandRefusedError);
    expect(error).toMatchObject({ code: 'NO_FUNDS', pattern: 'ledger.withdraw' });
  });

  it('turns an OK body that is no outcome into InvalidReplyError naming the request', () => {
    const outcome = commandOutcome(reply(Status.Ok, Buffer.from('[]')), 'p');
    expect(outcome).toEqual({ ok: false, error: expect.any(InvalidReplyError) });
    expect(errorOf(outcome).message).toBe('request 7: the reply body is not an outcome');
  });

  it('gives ALREADY_APPLIED its own error and other statuses their protocol errors', () => {
    const applied = commandOutcome(
      reply(Status.AlreadyApplied, errorBody('ALREADY_APPLIED', 'gone')),
      'p',
    );
    expect(errorOf(applied)).toBeInstanceOf(AlreadyAppliedError);
    const gap = commandOutcome(reply(Status.RequestGap, errorBody('REQUEST_GAP', 'gap')), 'p');
    expect(errorOf(gap)).toMatchObject({ code: 'REQUEST_GAP' });
  });

  it('settles queries like commands, with a query-worded invalid-body error', () => {
    expect(queryOutcome(reply(Status.Ok, okBody(1)), 'q')).toEqual({ ok: true, result: 1 });
    expect(errorOf(queryOutcome(reply(Status.Ok, Buffer.from('x')), 'q')).message).toBe(
      'the query reply body is not an outcome',
    );
    expect(
      errorOf(queryOutcome(reply(Status.InvalidRequest, errorBody('X', 'bad')), 'q')),
    ).toMatchObject({ code: 'INVALID_REQUEST', message: 'bad' });
  });
});
