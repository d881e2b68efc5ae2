import { InvalidOptionsError } from './errors/invalid-options.error';
import { DEFAULT_OPTIONS, resolveOptions } from './once-client-options';

const REQUIRED = { port: 7700, username: 'u', password: 'p' };

describe('resolveOptions', () => {
  it('fills in the documented defaults', () => {
    expect(resolveOptions(REQUIRED)).toEqual({
      ...REQUIRED,
      host: '127.0.0.1',
      clientId: undefined,
      identityFile: undefined,
      maxInFlight: 8,
      maxQueued: 1024,
      requestTimeoutMs: 30_000,
      connectTimeoutMs: 5_000,
      maxFrameBytes: 1024 * 1024,
      reconnect: DEFAULT_OPTIONS.reconnect,
    });
  });

  it('keeps what is given, reconnect fields one by one', () => {
    const resolved = resolveOptions({
      ...REQUIRED,
      requestTimeoutMs: 0,
      reconnect: { maxDelayMs: 100 },
    });
    expect(resolved.requestTimeoutMs).toBe(0);
    expect(resolved.reconnect).toEqual({ ...DEFAULT_OPTIONS.reconnect, maxDelayMs: 100 });
  });

  it.each([
    ['port', { port: 0 }],
    ['port', { port: 1.5 }],
    ['clientId', { clientId: 'xyz' }],
    ['clientId', { clientId: '0'.repeat(32) }],
    ['maxInFlight', { maxInFlight: 0 }],
    ['maxQueued', { maxQueued: -1 }],
    ['requestTimeoutMs', { requestTimeoutMs: -5 }],
    ['connectTimeoutMs', { connectTimeoutMs: 0 }],
    ['identityFile', { identityFile: '' }],
    ['reconnect.factor', { reconnect: { factor: 0.5 } }],
    ['reconnect.jitter', { reconnect: { jitter: 2 } }],
    ['reconnect.maxDelayMs', { reconnect: { initialDelayMs: 500, maxDelayMs: 100 } }],
    ['reconnect.maxAttempts', { reconnect: { maxAttempts: 0 } }],
  ])('refuses a bad %s, naming it', (name, override) => {
    const resolve = () => resolveOptions({ ...REQUIRED, ...override });
    expect(resolve).toThrow(InvalidOptionsError);
    expect(resolve).toThrow(`option ${name} `);
  });
});
