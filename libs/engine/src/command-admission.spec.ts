import { ZERO_CLIENT_ID } from '@once/protocol/internal';
import { CommandError } from './command.error';
import { admitCommand, commandBodyAtOnce } from './command-admission';
import { decodeCommandBody } from './command-body';
import { CommandRegistry } from './command-registry';

const apply = (data: unknown) => data;
const commands = new CommandRegistry([
  { pattern: 'plain', apply },
  { pattern: 'stamp', apply, admit: (data) => ({ ...(data as object), stamped: true }) },
  {
    pattern: 'refuse',
    apply,
    admit: () => {
      throw new CommandError('TOO_LATE', 'too late', { rpcError: { code: 'TOO_LATE' } });
    },
  },
  {
    pattern: 'crash',
    apply,
    admit: () => Promise.reject(new Error('vault token s3cr3t expired')),
  },
]);
const ctx = (pattern: string) => ({ pattern, userId: 7, client: ZERO_CLIENT_ID });

describe('admitCommand', () => {
  it('journals the request as sent without an admission step, and the step’s output with one', async () => {
    const raw = Buffer.from('{"pattern":"plain","data":{"a":1},"extra":true}');
    expect(await admitCommand(commands, 'plain', { a: 1 }, ctx('plain'), raw)).toBe(raw);
    const stamped = await admitCommand(commands, 'stamp', { a: 1 }, ctx('stamp'));
    expect(decodeCommandBody(stamped)).toEqual({
      pattern: 'stamp',
      data: { a: 1, stamped: true },
    });
  });

  it("journals a CommandError's refusal with its rpcError", async () => {
    const body = await admitCommand(commands, 'refuse', {}, ctx('refuse'));
    expect(decodeCommandBody(body)).toEqual({
      pattern: 'refuse',
      refusal: { code: 'TOO_LATE', message: 'too late', rpcError: { code: 'TOO_LATE' } },
    });
  });

  it('journals any other throw as ADMISSION_FAILED with an error id; the message and stack go to the log only', async () => {
    const lines: string[] = [];
    const logger = {
      log: () => undefined,
      warn: () => undefined,
      error: (l: string) => void lines.push(l),
    };
    const body = await admitCommand(commands, 'crash', {}, ctx('crash'), undefined, logger);

    const refusal = decodeCommandBody(body)?.refusal;
    expect(refusal?.code).toBe('ADMISSION_FAILED');
    const errorId =
      /^the admission step failed \(error ([0-9a-f]{12})\); the server log has the details$/.exec(
        refusal?.message ?? '',
      )?.[1];
    expect(errorId).toBeDefined();
    expect(body.toString('utf8')).not.toContain('s3cr3t');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`(error ${errorId})`);
    expect(lines[0]).toContain('Error: vault token s3cr3t expired');
  });
});

describe('commandBodyAtOnce', () => {
  it.each([
    ['a command without an admission step, journaled as sent', 'plain', true],
    ['a command without an admission step, encoded', 'plain', false],
    ['a pattern no command answers to', 'unknown', false],
  ])('gives %s the bytes admitCommand resolves with', async (_row, pattern, asSent) => {
    const raw = asSent ? Buffer.from(`{"pattern":"${pattern}","data":{"a":1}}`) : undefined;
    const now = commandBodyAtOnce(commands, pattern, { a: 1 }, raw);
    const admitted = await admitCommand(commands, pattern, { a: 1 }, ctx(pattern), raw);
    expect(now).toEqual(admitted);
    if (raw) expect(now).toBe(raw);
  });

  it('gives nothing for a command with an admission step: only admitCommand runs it', () => {
    expect(commandBodyAtOnce(commands, 'stamp', { a: 1 })).toBeUndefined();
    expect(commandBodyAtOnce(commands, 'refuse', {})).toBeUndefined();
  });
});
