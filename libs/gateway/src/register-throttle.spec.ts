import {
  REGISTER_FAILURE_DELAY_BASE_MS,
  REGISTER_FAILURE_DELAY_MAX_MS,
  RegisterThrottle,
  failureDelayMs,
} from './register-throttle';

describe('RegisterThrottle', () => {
  const fail = () => Promise.resolve(undefined);
  const succeed = () => Promise.resolve(7);

  it('doubles the delay of each failure past the free ones, up to its cap', () => {
    expect(failureDelayMs(-3)).toBe(0);
    expect(failureDelayMs(0)).toBe(0);
    expect(failureDelayMs(1)).toBe(REGISTER_FAILURE_DELAY_BASE_MS);
    expect(failureDelayMs(2)).toBe(2 * REGISTER_FAILURE_DELAY_BASE_MS);
    expect(failureDelayMs(1000)).toBe(REGISTER_FAILURE_DELAY_MAX_MS);
  });

  it('always checks the credentials: the right password passes from an address that used up its failures', async () => {
    const throttle = new RegisterThrottle({
      failedPerAddressPerMinute: 2,
      failedPerUserPerMinute: 100,
    });
    for (const name of ['a', 'b']) {
      expect(await throttle.attempt('10.0.0.1', name, fail)).toEqual({
        kind: 'checked',
        value: undefined,
      });
    }
    let checked = false;
    const result = await throttle.attempt('10.0.0.1', 'alice', () => {
      checked = true;
      return succeed();
    });
    expect(checked).toBe(true);
    expect(result).toEqual({ kind: 'checked', value: 7 });
    throttle.stop();
  });

  it('checks a username past its free failures one attempt at a time, whatever the addresses', async () => {
    const throttle = new RegisterThrottle({
      failedPerAddressPerMinute: 1000,
      failedPerUserPerMinute: 1,
    });
    await throttle.attempt('10.0.0.1', 'alice', fail);
    let running = 0;
    let most = 0;
    const slowFail = async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      return undefined;
    };
    const attempts = [1, 2, 3].map((i) => throttle.attempt(`10.0.0.${i + 1}`, 'alice', slowFail));
    // Another username is not held by alice's queue.
    expect(await throttle.attempt('10.0.0.9', 'bob', succeed)).toEqual({
      kind: 'checked',
      value: 7,
    });
    throttle.stop(); // ends the delays: the test does not wait for them
    const results = await Promise.all(attempts);
    expect(most).toBe(1);
    expect(results.every((r) => r.kind === 'checked' || r.kind === 'stopped')).toBe(true);
  });

  it('answers attempts still queued as stopped when the gateway stops', async () => {
    const throttle = new RegisterThrottle({
      failedPerAddressPerMinute: 1000,
      failedPerUserPerMinute: 1,
    });
    await throttle.attempt('10.0.0.1', 'alice', fail);
    let release: () => void = () => undefined;
    const first = throttle.attempt(
      '10.0.0.1',
      'alice',
      () => new Promise<undefined>((resolve) => (release = () => resolve(undefined))),
    );
    const second = throttle.attempt('10.0.0.2', 'alice', succeed);
    await new Promise((resolve) => setImmediate(resolve));
    throttle.stop();
    release();
    expect(await first).toEqual({ kind: 'checked', value: undefined });
    expect(await second).toEqual({ kind: 'stopped' });
  });
});
