import { type NatsConnection } from '@nats-io/transport-node';
import { parseSetting, setting } from '@once/settings';
import { clusterNames } from '../cluster-names';
import { ClusterKeyring } from '../key';
import { LEASE_DEFAULTS, resolveLeaseOptions } from './lease-options';

const connection = {} as NatsConnection;
const keyring = new ClusterKeyring([Buffer.alloc(32, 1)]);

describe('the lease options', () => {
  it('have the documented defaults: a 3 s lease renewed every second, key leader, R3', () => {
    const options = resolveLeaseOptions({ connection, keyring, nodeId: 'n1' });
    expect(options).toMatchObject({
      clusterName: 'once',
      ttlMs: 3000,
      renewIntervalMs: 1000,
      requestTimeoutMs: 1000,
      replicas: 3,
      key: 'leader',
      advertise: null,
    });
    expect(LEASE_DEFAULTS.clusterName).toBe(parseSetting(setting('clusterName'), 'once'));
  });

  it.each([
    [{ ttlMs: 1 }, /ttlMs must be an integer from 2/],
    [{ renewIntervalMs: 2000 }, /renewIntervalMs must be an integer from 1 to 1500/],
    [{ ttlMs: 1000, renewIntervalMs: 600 }, /renewIntervalMs must be an integer from 1 to 500/],
    [{ requestTimeoutMs: 4000 }, /requestTimeoutMs must be an integer from 1 to 3000/],
    [{ replicas: 0 }, /replicas must be an integer from 1 to 5/],
    [{ nodeId: 'n 1' }, /nodeId "n 1" must be 1 to 64 letters/],
  ])('refuse %j', (overrides, message) => {
    expect(() => resolveLeaseOptions({ connection, keyring, nodeId: 'n1', ...overrides })).toThrow(
      message,
    );
  });

  it.each(['once', 'orders-eu_1', 'x'.repeat(64), '', 'a.b', 'a b', 'x'.repeat(65)])(
    'take the cluster names the settings take, and only those (%j)',
    (name) => {
      const bySettings = accepts(() => parseSetting(setting('clusterName'), name));
      expect(accepts(() => clusterNames(name))).toBe(bySettings);
      expect(accepts(() => parseSetting(setting('nodeId'), name))).toBe(bySettings);
      expect(accepts(() => resolveLeaseOptions({ connection, keyring, nodeId: name }))).toBe(
        bySettings,
      );
    },
  );
});

function accepts(read: () => unknown): boolean {
  try {
    read();
    return true;
  } catch {
    return false;
  }
}
