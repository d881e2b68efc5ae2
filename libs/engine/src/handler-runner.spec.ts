import { EntryKind } from '@once/journal';
import { type JournalEntry } from '@once/journal/internal';
import { ZERO_CHECKSUM, clientIdFromBigInt } from '@once/protocol/internal';
import { type ApplyContext } from './apply-context';
import { CommandError } from './command.error';
import { encodeCommandBody } from './command-body';
import { CommandRegistry } from './command-registry';
import { type EngineLogger } from './engine-logger';
import { runCommandHandler } from './handler-runner';

const SECRET = 'db password=hunter2';

/** What `reportFailure` of the "crash" handler was told. */
const reported: Array<{ error: unknown; data: unknown; ctx: ApplyContext }> = [];

const commands = new CommandRegistry([
  { pattern: 'echo', apply: (data, ctx) => ({ data, op: ctx.op, userId: ctx.userId }) },
  {
    pattern: 'refuse',
    apply: () => {
      throw new CommandError('NOPE', 'no');
    },
  },
  {
    pattern: 'refuse-rpc',
    apply: () => {
      throw new CommandError('INVALID_SEQ', 'bad seq', {
        rpcError: { code: 'INVALID_SEQ', at: 3 },
      });
    },
  },
  { pattern: 'later', apply: () => Promise.resolve(1) },
  {
    pattern: 'crash',
    apply: () => {
      throw new Error(`connect failed (${SECRET})`);
    },
    reportFailure: (error, data, ctx) => reported.push({ error, data, ctx }),
  },
  {
    pattern: 'crash-report',
    apply: () => {
      throw new Error('first');
    },
    reportFailure: () => {
      throw new Error('the filter broke');
    },
  },
]);

function entry(body: Buffer): JournalEntry {
  return {
    kind: EntryKind.Command,
    client: clientIdFromBigInt(1n),
    session: 1,
    request: 1,
    userId: 5,
    requestChecksum: ZERO_CHECKSUM,
    body,
    op: 12,
    timestamp: 1n,
  };
}

/** A logger that keeps its lines. */
function recordingLog(): EngineLogger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (line: string) => void lines.push(line);
  return { lines, log: keep, warn: keep, error: keep };
}

function run(body: Buffer, log?: EngineLogger): unknown {
  return JSON.parse(runCommandHandler(commands, entry(body), log));
}

describe('runCommandHandler', () => {
  beforeEach(() => reported.splice(0));

  it('hands the handler the entry’s data and context, and answers its result', () => {
    expect(run(encodeCommandBody({ pattern: 'echo', data: 'x' }))).toEqual({
      ok: true,
      result: { data: 'x', op: 12, userId: 5 },
    });
  });

  it('turns every way a command can fail into a refusal body, never a throw', () => {
    const codeOf = (body: Buffer) => (run(body) as { error: { code: string } }).error.code;
    expect(codeOf(encodeCommandBody({ pattern: 'refuse', data: null }))).toBe('NOPE');
    expect(codeOf(encodeCommandBody({ pattern: 'later', data: null }))).toBe('ASYNC_HANDLER');
    expect(codeOf(encodeCommandBody({ pattern: 'missing', data: null }))).toBe('UNKNOWN_PATTERN');
    expect(codeOf(Buffer.from('not json'))).toBe('INVALID_ENTRY');
    const refusal = { code: 'FORBIDDEN', message: 'admission said no' };
    expect(codeOf(encodeCommandBody({ pattern: 'echo', refusal }))).toBe('FORBIDDEN');
  });

  it("carries a CommandError's rpcError, and an admission refusal's, in the body", () => {
    expect(run(encodeCommandBody({ pattern: 'refuse-rpc', data: null }))).toEqual({
      ok: false,
      error: { code: 'INVALID_SEQ', message: 'bad seq', rpcError: { code: 'INVALID_SEQ', at: 3 } },
    });
    const refusal = {
      code: 'FORBIDDEN',
      message: 'no',
      rpcError: { status: 'error', message: 'no' },
    };
    expect(run(encodeCommandBody({ pattern: 'echo', refusal }))).toEqual({
      ok: false,
      error: refusal,
    });
  });

  it("answers a crash with the op only: the error's message goes to the live log, never to the reply", () => {
    const body = encodeCommandBody({ pattern: 'crash', data: { n: 1 } });
    const log = recordingLog();
    const live = runCommandHandler(commands, entry(body), log);
    const replayed = runCommandHandler(commands, entry(body), undefined);

    expect(JSON.parse(live)).toEqual({
      ok: false,
      error: {
        code: 'HANDLER_FAILED',
        message: 'the handler failed at op 12; the server log has the details',
      },
    });
    expect(live).not.toContain('hunter2');
    expect(replayed).toBe(live);
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toContain(
      `handler for "crash" failed at op 12: Error: connect failed (${SECRET})`,
    );
    expect(log.lines[0]).toContain('handler-runner.spec.ts'); // the stack
  });

  it('tells the handler of a failure live only, with its data and context', () => {
    const body = encodeCommandBody({ pattern: 'crash', data: { n: 1 } });
    runCommandHandler(commands, entry(body), undefined);
    expect(reported).toEqual([]);

    runCommandHandler(commands, entry(body), recordingLog());
    expect(reported).toHaveLength(1);
    expect(reported[0].error).toBeInstanceOf(Error);
    expect(reported[0]).toMatchObject({ data: { n: 1 }, ctx: { op: 12, userId: 5 } });
  });

  it('logs a report that throws, and answers as if it had not', () => {
    const body = encodeCommandBody({ pattern: 'crash-report', data: null });
    const log = recordingLog();
    const live = runCommandHandler(commands, entry(body), log);
    expect(live).toBe(runCommandHandler(commands, entry(body), undefined));
    expect(log.lines[1]).toContain('reporting the failure of "crash-report" at op 12 failed');
    expect(log.lines[1]).toContain('the filter broke');
  });
});
