import { decodeEngineSnapshot } from './engine-snapshot-codec';
import { type HttpRequestDraft } from './http/http-request';
import { HTTP_KEYS_MAP } from './http/http-key-table';
import { isKeyedState } from './keyed';
import { OnceNode } from './once-node';
import { verifyReplay } from './replay-verification';
import { sampleModules } from './__fixtures__/sample-modules.fixture';
import { tempDataDir } from './__fixtures__/test-node.fixture';

const MS = 1_000_000n;
const START_NS = 1_700_000_000_000n * MS;
const RETENTION_MS = 1_000;

/** The sample modules without their keyed state: an application whose only keyed records are the key table's. */
function modulesWithoutKeyedState() {
  const modules = sampleModules();
  return {
    commands: modules.commands.filter((handler) => !handler.pattern.startsWith('keyed.')),
    states: modules.states.filter(([, state]) => !isKeyedState(state)),
  };
}

function put(key: string, value: string): HttpRequestDraft {
  return {
    scope: 'user 7|POST /kv',
    key,
    fingerprint: Buffer.alloc(16, 1),
    userId: 7,
    pattern: 'kv.put',
    data: { key: 'k', value },
    status: 201,
    refusalStatus: 422,
  };
}

describe('Engine: the HTTP key table in the keyed records', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let node: OnceNode;
  const clock = { now: START_NS };

  async function open(keyedCacheEntries?: number): Promise<OnceNode> {
    const modules = modulesWithoutKeyedState();
    return OnceNode.open({
      dataDir: dir,
      commands: modules.commands,
      states: modules.states,
      snapshotEveryOps: 0,
      progressIntervalMs: 10_000,
      settings: { httpKeyRetentionMs: RETENTION_MS },
      journal: { clock: () => clock.now },
      keyedCacheEntries,
    });
  }

  async function start(keyedCacheEntries?: number): Promise<void> {
    node = await open(keyedCacheEntries);
    await node.start();
  }

  beforeEach(async () => {
    ({ dir, cleanup } = await tempDataDir('once-http-keys-'));
    clock.now = START_NS;
  });

  afterEach(async () => {
    await node.stop();
    await cleanup();
  });

  it('given an application without keyed state, when keys are recorded and the node restarts, then the keys are keyed records written with the snapshot, restored from it and verified', async () => {
    await start();
    const first = await node.engine.submitHttp(put('a', 'v1'));
    await node.engine.submitHttp(put('b', 'v2'));
    await node.stop();
    const written = decodeEngineSnapshot(node.engine.captureSnapshot());
    expect(written.keyed?.counts).toEqual([[HTTP_KEYS_MAP, 2]]);

    // A cache of no record: every read of the key table goes to LevelDB.
    await start(0);
    expect(node.engine.applier.restoredOp).toBe(written.op);
    expect(node.engine.httpKeyCount).toBe(2);
    expect(await node.engine.submitHttp(put('a', 'v1'))).toEqual({
      kind: 'replayed',
      response: (first as { response: unknown }).response,
    });
    await node.stop();

    const modules = modulesWithoutKeyedState();
    const verifier = await OnceNode.open({
      dataDir: dir,
      commands: modules.commands,
      states: modules.states,
    });
    try {
      const result = await verifyReplay(verifier.journal, verifier.engine);
      expect(result.snapshotMatches).toBe(true);
      expect(result.recordsOp).toBe(result.snapshotOp);
      expect(result.recordsMatch).toBe(true);
    } finally {
      await verifier.stop({ snapshot: false });
    }
    await start();
  });

  it('given every key forgotten, when a snapshot is written, then it is in the format of a node without HTTP keys again, and restores', async () => {
    await start();
    await node.engine.submitHttp(put('a', 'v1'));
    await node.engine.writeSnapshot();
    expect(node.engine.captureSnapshot().readUInt8(4)).toBe(4);
    clock.now += BigInt(RETENTION_MS * 2) * MS;
    // Any entry applies retention first: this one's key is then the only one.
    await node.engine.submitHttp(put('b', 'v2'));
    clock.now += BigInt(RETENTION_MS * 2) * MS;
    await node.engine.submitSystemCommand('kv.put', { key: 'k', value: 'v3' });
    expect(node.engine.httpKeyCount).toBe(0);
    await node.stop();
    const bytes = node.engine.captureSnapshot();
    expect(bytes.readUInt8(4)).toBe(2);

    await start(0);
    expect(node.engine.applier.restoredOp).toBe(decodeEngineSnapshot(bytes).op);
    expect(node.engine.httpKeyCount).toBe(0);
    expect((await node.engine.submitHttp(put('a', 'v1'))).kind).toBe('applied');
  });
});
