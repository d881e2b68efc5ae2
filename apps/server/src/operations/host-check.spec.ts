import { allowedHostsOf, hostAllowed } from './host-check';

describe('hostAllowed', () => {
  const allow = { port: 9464, names: allowedHostsOf('ops.internal, Metrics.Example:443') };

  it('answers localhost and IP literals on the listener port, or without a port', () => {
    for (const host of [
      'localhost:9464',
      'LOCALHOST',
      '127.0.0.1:9464',
      '[::1]:9464',
      '10.1.2.3:9464',
      '[fe80::1]',
      undefined,
    ]) {
      expect(hostAllowed(host, allow)).toBe(true);
    }
  });

  it('refuses a rebound name, another port, and what is not a Host at all', () => {
    for (const host of [
      'evil.example:9464',
      'localhost:9465',
      '127.0.0.1:80',
      'localhost.evil.example',
      'ops.internal.evil.example',
      'a b',
      '[::1',
    ]) {
      expect(hostAllowed(host, allow)).toBe(false);
    }
  });

  it('answers the configured names: a bare name on any port, a name:port on that port only', () => {
    expect(hostAllowed('ops.internal:9464', allow)).toBe(true);
    expect(hostAllowed('OPS.internal', allow)).toBe(true);
    expect(hostAllowed('metrics.example:443', allow)).toBe(true);
    expect(hostAllowed('metrics.example:9464', allow)).toBe(false);
  });
});
