import { formatNodeAddress, parseNodeAddress, sameNodeAddress } from './node-address';
import { leaderOf } from './ping-reply';

describe('node addresses', () => {
  it.each([
    ['127.0.0.1:7700', { host: '127.0.0.1', port: 7700 }],
    ['once-2.internal:1', { host: 'once-2.internal', port: 1 }],
    ['[::1]:65535', { host: '::1', port: 65535 }],
  ])('reads %s', (text, address) => {
    expect(parseNodeAddress(text)).toEqual(address);
    expect(formatNodeAddress(address)).toBe(text);
  });

  it.each([
    ['no port', 'host'],
    ['an empty port', 'host:'],
    ['an empty host', ':7700'],
    ['port 0', 'host:0'],
    ['a port above 65535', 'host:65536'],
    ['a signed port', 'host:+77'],
    ['an unbracketed IPv6 address', '::1:7700'],
    ['brackets around a name', '[host]:7700'],
    ['blanks in the host', 'my host:7700'],
    ['a number', 7700],
    ['null', null],
  ])('ignores %s', (_what, text) => {
    expect(parseNodeAddress(text)).toBeUndefined();
  });

  it('compares hosts without case, ports exactly', () => {
    expect(sameNodeAddress({ host: 'A.example', port: 1 }, { host: 'a.EXAMPLE', port: 1 })).toBe(
      true,
    );
    expect(sameNodeAddress({ host: 'a', port: 1 }, { host: 'a', port: 2 })).toBe(false);
  });
});

describe('leaderOf (PING reply body)', () => {
  const body = (value: unknown) => Buffer.from(JSON.stringify(value));

  it('reads the leader a cluster node reports', () => {
    expect(
      leaderOf(
        body({ version: 1, commit: 9, ready: true, role: 'follower', leader: '10.0.0.2:7700' }),
      ),
    ).toEqual({ host: '10.0.0.2', port: 7700 });
  });

  it.each([
    ['a single node (no leader field)', body({ version: 1, commit: 3, ready: true })],
    ['no leader yet (null)', body({ version: 1, commit: 3, ready: false, leader: null })],
    ['a malformed leader', body({ version: 1, leader: 'nowhere' })],
    ['a body that is not JSON', Buffer.from('{"version"')],
    ['a JSON body that is not an object', body([1, 2])],
    ['an empty body', Buffer.alloc(0)],
  ])('finds none in %s', (_what, bytes) => {
    expect(leaderOf(bytes)).toBeUndefined();
  });
});
