import {
  HEARTBEAT_KEYS,
  decodeNodeInfo,
  encodeNodeInfo,
  heartbeatKey,
  nodeIdOfKey,
} from './node-info';

const bytes = (value: string) => Buffer.from(value, 'utf8');

describe('heartbeat keys and values', () => {
  it('keys a node by its id under node., and reads the id back', () => {
    expect(heartbeatKey('n-1')).toBe('node.n-1');
    expect(nodeIdOfKey(heartbeatKey('n-1'))).toBe('n-1');
    expect(HEARTBEAT_KEYS).toBe('node.>');
  });

  it.each(['leader', 'node.', 'node.a.b', 'nodes.a'])('reads %j as no heartbeat key', (key) => {
    expect(nodeIdOfKey(key)).toBeUndefined();
  });

  it('writes {advertise, startedAt} as JSON and reads it back', () => {
    const info = { advertise: 'n1.example:7700', startedAt: 1_700_000_000_000 };
    expect(Buffer.from(encodeNodeInfo(info)).toString('utf8')).toBe(
      '{"advertise":"n1.example:7700","startedAt":1700000000000}',
    );
    expect(decodeNodeInfo(encodeNodeInfo(info))).toEqual(info);
    expect(decodeNodeInfo(encodeNodeInfo({ advertise: null, startedAt: 0 }))).toEqual({
      advertise: null,
      startedAt: 0,
    });
  });

  it.each([
    'alive',
    '[]',
    '{"advertise":null}',
    '{"advertise":7700,"startedAt":1}',
    '{"advertise":null,"startedAt":-1}',
    '{"advertise":null,"startedAt":1.5}',
  ])('reads %s as no heartbeat it knows', (value) => {
    expect(decodeNodeInfo(bytes(value))).toBeUndefined();
  });
});
