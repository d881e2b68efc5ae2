import { WaitLog } from './wait-log';

/** A logger that keeps its lines, and a clock the test moves. */
function rig(interval = 30_000) {
  const lines: Array<{ level: 'warn' | 'log'; line: string }> = [];
  const clock = { now: 0 };
  const logger = {
    warn: (line: string) => lines.push({ level: 'warn', line }),
    log: (line: string) => lines.push({ level: 'log', line }),
  };
  const log = new WaitLog(logger, interval, () => clock.now);
  return { lines, clock, log };
}

const wait = (attempt: number) => ({
  attempt,
  delayMs: 100,
  message: '127.0.0.1:7701 is not ready (NOT_READY) and names no leader',
});

describe('WaitLog', () => {
  it('logs the first wait at once, saying what the client waits for', () => {
    const { lines, log } = rig();
    log.waiting(wait(1));
    expect(lines).toEqual([
      {
        level: 'warn',
        line: 'once client: no session yet; waiting 100 ms before reconnect attempt 1: 127.0.0.1:7701 is not ready (NOT_READY) and names no leader',
      },
    ]);
  });

  it('then at most one line per interval, counting the waits it did not log', () => {
    const { lines, clock, log } = rig(30_000);
    for (let attempt = 1; attempt <= 100; attempt += 1) {
      log.waiting(wait(attempt));
      clock.now += 1_000; // a wait a second for 100 s
    }
    // t = 0, 30 s, 60 s, 90 s
    expect(lines).toHaveLength(4);
    expect(lines[1].line).toContain('reconnect attempt 31');
    expect(lines[1].line).toContain('(29 more waits since the last line)');
  });

  it('says once when a session is bound after a logged wait, and nothing after an unlogged one', () => {
    const { lines, clock, log } = rig(30_000);
    log.waiting(wait(1));
    log.waiting(wait(2));
    log.bound('127.0.0.1:7700');
    expect(lines.at(-1)).toEqual({
      level: 'log',
      line: 'once client: session bound on 127.0.0.1:7700 after 2 waits',
    });
    // A second episode within the interval: its wait is not logged, so neither is its end
    log.waiting(wait(1));
    log.bound('127.0.0.1:7700');
    expect(lines).toHaveLength(2);
    clock.now += 30_000;
    log.waiting(wait(1));
    expect(lines.at(-1)?.line).toContain('(2 more waits since the last line)');
  });

  it('writes nothing without a logger', () => {
    const log = new WaitLog(undefined);
    expect(() => {
      log.waiting(wait(1));
      log.bound('127.0.0.1:7700');
      log.stopped('gone');
    }).not.toThrow();
  });

  it('falls back to warn for the bound line when the logger has no log', () => {
    const lines: string[] = [];
    const log = new WaitLog({ warn: (line) => lines.push(line) });
    log.waiting(wait(1));
    log.bound('127.0.0.1:7700');
    expect(lines[1]).toBe('once client: session bound on 127.0.0.1:7700 after 1 wait');
  });
});
