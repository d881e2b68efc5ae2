import { ClusterKeyring } from '../key';
import {
  HEARTBEAT_KEYS,
  type HeartbeatSeal,
  decodeNodeInfo,
  encodeNodeInfo,
  heartbeatKey,
  nodeIdOfKey,
} from './node-info';

const bytes = (value: string) => Buffer.from(value, 'utf8');
const seal: HeartbeatSeal = {
  keyring: new ClusterKeyring([Buffer.alloc(32, 3)]),
  bucket: 'ONCE_t_CLUSTER',
};
const encode = (info: Parameters<typeof encodeNodeInfo>[0], node = 'n1') =>
  encodeNodeInfo(info, seal, node);
const decode = (value: Uint8Array, node = 'n1') => decodeNodeInfo(value, seal, node);

describe('heartbeat keys and values', () => {
  it('keys a node by its id under node., and reads the id back', () => {
    expect(heartbeatKey('n-1')).toBe('node.n-1');
    expect(nodeIdOfKey(heartbeatKey('n-1'))).toBe('n-1');
    expect(HEARTBEAT_KEYS).toBe('node.>');
  });

  it.each(['leader', 'node.', 'node.a.b', 'nodes.a'])('reads %j as no heartbeat key', (key) => {
    expect(nodeIdOfKey(key)).toBeUndefined();
  });

  it('writes {advertise, startedAt, mac} as JSON and reads it back', () => {
    const info = { advertise: 'n1.example:7700', startedAt: 1_700_000_000_000 };
    expect(Buffer.from(encode(info)).toString('utf8')).toMatch(
      /^\{"advertise":"n1\.example:7700","startedAt":1700000000000,"mac":"[A-Za-z0-9+/]{43}="\}$/,
    );
    expect(decode(encode(info))).toEqual(info);
    expect(decode(encode({ advertise: null, startedAt: 0 }))).toEqual({
      advertise: null,
      startedAt: 0,
    });
  });

  it('reads no heartbeat from a value without a MAC, a changed one, another node’s, or another key’s', () => {
    const info = { advertise: 'n1.example:7700', startedAt: 5 };
    expect(decode(bytes(JSON.stringify(info)))).toBeUndefined();
    const text = Buffer.from(encode(info)).toString('utf8');
    expect(decode(bytes(text.replace('n1.example', 'evil.example')))).toBeUndefined();
    expect(decode(encode(info), 'n2')).toBeUndefined();
    const other = { ...seal, keyring: new ClusterKeyring([Buffer.alloc(32, 4)]) };
    expect(decodeNodeInfo(encode(info), other, 'n1')).toBeUndefined();
  });

  it.each([
    'alive',
    '[]',
    '{"advertise":null}',
    '{"advertise":7700,"startedAt":1}',
    '{"advertise":null,"startedAt":-1}',
    '{"advertise":null,"startedAt":1.5}',
  ])('reads %s as no heartbeat it knows, even signed', (value) => {
    const mac = seal.keyring
      .sign('heartbeat', [bytes(`once-heartbeat\0${seal.bucket}\0n1\0`), bytes(value)])
      .toString('base64');
    const signed = value.endsWith('}') ? `${value.slice(0, -1)},"mac":"${mac}"}` : value;
    expect(decode(bytes(signed))).toBeUndefined();
  });
});
