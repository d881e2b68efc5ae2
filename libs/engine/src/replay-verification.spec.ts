import { KEYED_HEAD_KEY, SUBLEVEL_NAMES } from '@once/journal/internal';
import { ClassicLevel } from 'classic-level';
import { join } from 'node:path';
import { startTestNode, tempDataDir, verifyDataDir } from './__fixtures__/test-node.fixture';

const verify = verifyDataDir;

/** Changes one keyed record of the head generation in a stopped directory, as a bad disk or a hand would. */
async function alterOneRecord(dir: string): Promise<void> {
  const db = new ClassicLevel<Buffer, Buffer>(join(dir, 'leveldb'), {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
  });
  await db.open();
  try {
    const keyed = db.sublevel<Buffer, Buffer>(SUBLEVEL_NAMES.keyed, {
      keyEncoding: 'buffer',
      valueEncoding: 'buffer',
    });
    const head = JSON.parse((await keyed.get(KEYED_HEAD_KEY))!.toString()) as {
      generation: number;
    };
    const prefix = Buffer.alloc(4);
    prefix.writeUInt32BE(head.generation);
    const [[key]] = await keyed.iterator({ gte: prefix, limit: 1 }).all();
    await keyed.put(key, Buffer.from('{"value":"altered","writes":1}'));
  } finally {
    await db.close();
  }
}

describe('verifyReplay and the keyed records on disk', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await tempDataDir('once-verify-records-'));
    const live = await startTestNode(dir);
    for (let i = 0; i < 12; i++) {
      await live.engine.submitSystemCommand('keyed.put', { key: `k${i % 5}`, value: `v${i}` });
    }
    await live.node.stop();
  });
  afterEach(async () => cleanup());

  it('given a directory stopped gracefully, when verified, then the replay equals the snapshot and the records on disk are that snapshot’s', async () => {
    const result = await verify(dir);
    expect(result.snapshotMatches).toBe(true);
    expect(result.recordsOp).toBe(result.snapshotOp);
    expect(result.recordsMatch).toBe(true);
  });

  it('given a keyed record altered on disk, when verified, then the replay still equals the snapshot but the records are found not to be its', async () => {
    await alterOneRecord(dir);
    const result = await verify(dir);
    expect(result.snapshotMatches).toBe(true);
    expect(result.recordsMatch).toBe(false);
  });
});
