import { EntryKind, type JournalEntry } from '@once/journal';
import { ZERO_CHECKSUM, clientIdFromBigInt } from '@once/protocol';
import { CommandError } from './command.error';
import { encodeCommandBody } from './command-body';
import { CommandRegistry } from './command-registry';
import { runCommandHandler } from './handler-runner';

const commands = new CommandRegistry([
  { pattern: 'echo', apply: (data, ctx) => ({ data, op: ctx.op, userId: ctx.userId }) },
  {
    pattern: 'refuse',
    apply: () => {
      throw new CommandError('NOPE', 'no');
    },
  },
  { pattern: 'later', apply: () => Promise.resolve(1) },
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

function run(body: Buffer): unknown {
  return JSON.parse(runCommandHandler(commands, entry(body), undefined));
}

describe('runCommandHandler', () => {
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
});
