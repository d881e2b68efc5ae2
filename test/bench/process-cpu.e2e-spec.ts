import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readProcessCpuMs, waitForIdle } from '../../bench/process-cpu';

jest.setTimeout(120_000);

/** A node process that spins until it used `cpuMs` of CPU (forever: Infinity), then idles. */
async function spinner(cpuMs: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const limit = ${Number.isFinite(cpuMs) ? cpuMs : 'Infinity'} * 1000;
       console.log('started');
       for (;;) { const { user, system } = process.cpuUsage(); if (user + system >= limit) break; }
       setInterval(() => {}, 1000);`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await once(child.stdout, 'data');
  return child;
}

describe('bench: waiting for services to be idle', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });

  it('given a process busy for 600 ms of CPU, when waiting for it to be idle, then the wait ends after that CPU was used', async () => {
    // Given
    const busy = await spinner(600);
    children.push(busy);

    // When
    const wait = await waitForIdle([busy.pid, undefined], { windowMs: 500 });

    // Then
    expect(wait.idle).toBe(true);
    // /proc counts in 10 ms ticks, and node's own start-up before the spin is not in the 600.
    expect(await readProcessCpuMs(busy.pid)).toBeGreaterThanOrEqual(500);
  });

  it('given a process that never stops, when waiting with a bound, then the wait says it timed out', async () => {
    // Given
    const busy = await spinner(Infinity);
    children.push(busy);

    // When
    const wait = await waitForIdle([busy.pid], { windowMs: 500, timeoutMs: 1500 });

    // Then
    expect(wait).toMatchObject({ idle: false });
    expect(wait.waitedMs).toBeGreaterThanOrEqual(1500);
  });

  it('given no process at that id, then its CPU is unknown and it counts as idle', async () => {
    expect(await readProcessCpuMs(undefined)).toBeUndefined();
    expect(await readProcessCpuMs(2 ** 30)).toBeUndefined();
    expect(await waitForIdle([2 ** 30], { windowMs: 100 })).toMatchObject({ idle: true });
  });
});
