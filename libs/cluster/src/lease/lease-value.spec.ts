import { ClusterKeyring } from '../key';
import { type LeaseSeal, decodeLeaseValue, encodeLeaseValue } from './lease-value';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');
const bytes = (value: string) => Buffer.from(value, 'utf8');
const KEY = Buffer.alloc(32, 7);
const seal: LeaseSeal = { keyring: new ClusterKeyring([KEY]), scope: 'ONCE_t_CLUSTER/leader' };

describe('the lease value', () => {
  it('is the holder as JSON {node, advertise, term, mac}, and reads back as written', () => {
    const holder = { node: 'n1', advertise: 'node1.example.com:7700', term: 7 };
    expect(text(encodeLeaseValue(holder, seal))).toMatch(
      /^\{"node":"n1","advertise":"node1\.example\.com:7700","term":7,"mac":"[A-Za-z0-9+/]{43}="\}$/,
    );
    expect(decodeLeaseValue(encodeLeaseValue(holder, seal), seal)).toEqual({ holder });
    const silent = { node: 'n2', advertise: null, term: 1 };
    expect(decodeLeaseValue(encodeLeaseValue(silent, seal), seal)).toEqual({ holder: silent });
  });

  it('keeps only the three keys of the holder', () => {
    const written = JSON.parse(
      text(encodeLeaseValue({ node: 'n1', advertise: null, term: 2 }, seal)),
    ) as Record<string, unknown>;
    const decoded = decodeLeaseValue(bytes(JSON.stringify({ ...written, x: 1 })), seal);
    expect(decoded).toEqual({ holder: { node: 'n1', advertise: null, term: 2 } });
  });

  it.each([0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1, NaN])('refuses to write term %p', (term) => {
    expect(() => encodeLeaseValue({ node: 'n1', advertise: null, term }, seal)).toThrow(
      /lease term must be an integer from 1/,
    );
  });

  it.each([
    ['not JSON', 'leader'],
    ['not an object', '7'],
    ['null', 'null'],
    ['no node', '{"advertise":null,"term":1}'],
    ['an empty node', '{"node":"","advertise":null,"term":1}'],
    ['a numeric advertise', '{"node":"n1","advertise":7700,"term":1}'],
    ['no advertise', '{"node":"n1","term":1}'],
    ['term 0', '{"node":"n1","advertise":null,"term":0}'],
    ['a string term', '{"node":"n1","advertise":null,"term":"1"}'],
  ])('reads %s as no holder it knows', (_what, value) => {
    expect(decodeLeaseValue(bytes(value), seal)).toEqual({
      holder: undefined,
      problem: 'unreadable',
    });
  });

  describe('its MAC', () => {
    const signed = (holder: { node: string; advertise: string | null; term: number }) =>
      JSON.parse(text(encodeLeaseValue(holder, seal))) as Record<string, unknown>;
    const unverified = { holder: undefined, problem: 'unverified' };

    it('is missing from a value written by hand: no holder, however well formed', () => {
      const forged = bytes('{"node":"evil","advertise":"127.0.0.1:17999","term":99}');
      expect(decodeLeaseValue(forged, seal)).toEqual(unverified);
    });

    it('does not verify once the address, the node or the term is changed', () => {
      const value = signed({ node: 'n1', advertise: 'n1:7700', term: 3 });
      for (const change of [
        { advertise: '127.0.0.1:17999' },
        { node: 'evil' },
        { term: 4 },
        { mac: Buffer.alloc(32).toString('base64') },
        { mac: 'not base64 at all' },
      ]) {
        expect(decodeLeaseValue(bytes(JSON.stringify({ ...value, ...change })), seal)).toEqual(
          unverified,
        );
      }
    });

    it('does not verify under another key, nor for another cluster’s lease key', () => {
      const value = encodeLeaseValue({ node: 'n1', advertise: null, term: 3 }, seal);
      const otherKey = { ...seal, keyring: new ClusterKeyring([Buffer.alloc(32, 8)]) };
      expect(decodeLeaseValue(value, otherKey)).toEqual(unverified);
      expect(decodeLeaseValue(value, { ...seal, scope: 'ONCE_u_CLUSTER/leader' })).toEqual(
        unverified,
      );
    });

    it('verifies under any key of a ring that holds the signing key', () => {
      const holder = { node: 'n1', advertise: null, term: 3 };
      const value = encodeLeaseValue(holder, seal);
      const rolled = { ...seal, keyring: new ClusterKeyring([Buffer.alloc(32, 8), KEY]) };
      expect(decodeLeaseValue(value, rolled)).toEqual({ holder });
    });
  });
});
