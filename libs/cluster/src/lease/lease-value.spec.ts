import { decodeLeaseValue, encodeLeaseValue } from './lease-value';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');
const bytes = (value: string) => Buffer.from(value, 'utf8');

describe('the lease value', () => {
  it('is the holder as JSON {node, advertise, term}, and reads back as written', () => {
    const holder = { node: 'n1', advertise: 'node1.example.com:7700', term: 7 };
    expect(text(encodeLeaseValue(holder))).toBe(
      '{"node":"n1","advertise":"node1.example.com:7700","term":7}',
    );
    expect(decodeLeaseValue(encodeLeaseValue(holder))).toEqual(holder);
    const silent = { node: 'n2', advertise: null, term: 1 };
    expect(decodeLeaseValue(encodeLeaseValue(silent))).toEqual(silent);
  });

  it('keeps only the three keys', () => {
    const decoded = decodeLeaseValue(bytes('{"node":"n1","advertise":null,"term":2,"x":1}'));
    expect(decoded).toEqual({ node: 'n1', advertise: null, term: 2 });
  });

  it.each([0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1, NaN])('refuses to write term %p', (term) => {
    expect(() => encodeLeaseValue({ node: 'n1', advertise: null, term })).toThrow(
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
    expect(decodeLeaseValue(bytes(value))).toBeUndefined();
  });
});
