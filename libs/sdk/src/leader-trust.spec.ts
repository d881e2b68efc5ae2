import { distrustOf, type HintContext } from './leader-trust';

const UNKNOWN_PLAIN: HintContext = {
  known: false,
  verified: false,
  tls: false,
};

describe('distrustOf', () => {
  it('follows a configured node under every policy, even over plain TCP', () => {
    for (const policy of ['configured', 'tls', 'any'] as const) {
      expect(distrustOf(policy, { ...UNKNOWN_PLAIN, known: true })).toBeUndefined();
    }
  });

  it('by default (tls), refuses an unknown address named over plain TCP, saying so', () => {
    expect(distrustOf('tls', UNKNOWN_PLAIN)).toBe(
      "it is not one of the client's configured nodes, and the connection is plain TCP, not verified TLS",
    );
  });

  it('by default (tls), follows an unknown address named over verified TLS, but not over TLS left unverified', () => {
    expect(distrustOf('tls', { ...UNKNOWN_PLAIN, tls: true, verified: true })).toBeUndefined();
    expect(distrustOf('tls', { ...UNKNOWN_PLAIN, tls: true })).toContain(
      'was not verified (tls.rejectUnauthorized is false)',
    );
  });

  it('with configured, refuses every unknown address, verified TLS or not', () => {
    expect(distrustOf('configured', { ...UNKNOWN_PLAIN, tls: true, verified: true })).toBe(
      "it is not one of the client's configured nodes (trustLeaderHints: 'configured')",
    );
  });

  it('with any, follows an unknown address over plain TCP', () => {
    expect(distrustOf('any', UNKNOWN_PLAIN)).toBeUndefined();
  });

  it('follows an address learnt earlier (it was trusted when learnt)', () => {
    expect(distrustOf('tls', { ...UNKNOWN_PLAIN, known: true })).toBeUndefined();
  });
});
