import { ClusterKeyring, type LeaseSeal, leaseSeal } from '@once/cluster/internal';

/** The key the in-process cluster tests sign and verify with (their own NATS, nothing else). */
export const TEST_CLUSTER_KEY = Buffer.alloc(32, 0x5a);

/** A keyring holding {@link TEST_CLUSTER_KEY}. */
export const TEST_KEYRING = new ClusterKeyring([TEST_CLUSTER_KEY]);

/** The lease value seal of cluster `clusterName`'s lease key (default key `leader`). */
export function testLeaseSeal(clusterName: string, key = 'leader'): LeaseSeal {
  return leaseSeal(TEST_KEYRING, clusterName, key);
}
