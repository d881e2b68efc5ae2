import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runServiceToExit } from '../support/wire';

/**
 * Cluster mode is configured but not run by this build: the reference service
 * must stop rather than serve alone on its local journal while the operator
 * believes it shares a replicated one.
 */
describe('given the reference service of a build without cluster mode', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'once-cluster-refusal-'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('when ONCE_NATS_SERVERS and ONCE_NODE_ID are set, then it exits 2 saying cluster mode is not available, without opening a data directory', async () => {
    const dataDir = join(root, 'never-opened');
    const { code, output } = await runServiceToExit({
      ONCE_NATS_SERVERS: 'nats://127.0.0.1:4222',
      ONCE_NODE_ID: 'n1',
      ONCE_DATA_DIR: dataDir,
    });
    expect(code).toBe(2);
    expect(output).toMatch(
      /^once: cluster mode is not available in this build yet: ONCE_NATS_SERVERS \(--nats-servers\) is set/m,
    );
    expect(existsSync(dataDir)).toBe(false);
  });

  it('when ONCE_NATS_SERVERS is set without ONCE_NODE_ID, then it exits 2 naming both settings', async () => {
    const { code, output } = await runServiceToExit({
      ONCE_NATS_SERVERS: 'nats://127.0.0.1:4222',
      ONCE_DATA_DIR: join(root, 'no-node-id'),
    });
    expect(code).toBe(2);
    expect(output).toMatch(/invalid setting: .*ONCE_NATS_SERVERS.*needs ONCE_NODE_ID/);
  });

  it('when a NATS server is not a nats:// URL, then it exits 2 naming the setting', async () => {
    const { code, output } = await runServiceToExit({
      ONCE_NATS_SERVERS: 'nats://127.0.0.1:4222,127.0.0.1:4223',
      ONCE_NODE_ID: 'n1',
      ONCE_DATA_DIR: join(root, 'bad-url'),
    });
    expect(code).toBe(2);
    expect(output).toMatch(/ONCE_NATS_SERVERS.*nats-servers must be comma-separated nats:\/\//);
  });
});
