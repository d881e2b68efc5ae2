import { canonicalJson, requestFingerprint } from './request-fingerprint';

describe('canonicalJson', () => {
  it('sorts the keys of every object, at any depth, and keeps arrays in order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('reads what JSON cannot hold as JSON.stringify does', () => {
    expect(canonicalJson([undefined, 1])).toBe('[null,1]');
    expect(canonicalJson({ a: undefined, b: 2 })).toBe('{"b":2}');
    expect(canonicalJson(undefined)).toBe('null');
  });
});

describe('requestFingerprint', () => {
  const data = [{ account: 'a-1', amount: 50 }, '7'];

  it('is 16 bytes, the same for the same request', () => {
    const first = requestFingerprint('POST', '/ledger/:id/deposit', data);
    expect(first).toHaveLength(16);
    expect(requestFingerprint('POST', '/ledger/:id/deposit', data)).toEqual(first);
  });

  it('does not depend on the order of the keys of the body', () => {
    expect(requestFingerprint('POST', '/x', [{ amount: 50, account: 'a-1' }, '7'])).toEqual(
      requestFingerprint('POST', '/x', [{ account: 'a-1', amount: 50 }, '7']),
    );
  });

  it('differs for another body, another parameter, another route or another method', () => {
    const first = requestFingerprint('POST', '/x', data).toString('hex');
    const others = [
      requestFingerprint('POST', '/x', [{ account: 'a-1', amount: 51 }, '7']),
      requestFingerprint('POST', '/x', [{ account: 'a-1', amount: 50 }, '8']),
      requestFingerprint('POST', '/y', data),
      requestFingerprint('PUT', '/x', data),
    ].map((fingerprint) => fingerprint.toString('hex'));
    expect(new Set([first, ...others]).size).toBe(5);
  });
});
