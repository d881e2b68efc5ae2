import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomClientId } from '@once/protocol';
import { readIdentityFile } from './identity-file';
import { IdentityPersister } from './identity-persister';
import { type IdentityRecord } from './identity-record';

describe('IdentityPersister', () => {
  let dir: string;
  let path: string;
  let state: IdentityRecord;
  let snapshots: number;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'once-sdk-persister-spec-'));
    path = join(dir, 'identity.json');
    snapshots = 0;
    state = {
      clientId: randomClientId(),
      userId: 1,
      epoch: 3,
      resumeToken: Buffer.alloc(16, 7),
      nextRequest: 1,
      watermark: 0,
      registering: false,
      inDoubt: [],
    };
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const persister = (onError: (error: unknown) => void = () => undefined) =>
    new IdentityPersister(
      path,
      () => {
        snapshots++;
        return state;
      },
      onError,
    );

  it('writes once for every flush of the same turn, with the state as it is when the write starts', async () => {
    const writer = persister();
    const flushes = [1, 2, 3].map((request) => {
      state = {
        ...state,
        nextRequest: request + 1,
        inDoubt: [...state.inDoubt, { request, body: Buffer.from([request]) }],
      };
      return writer.flush();
    });
    await Promise.all(flushes);
    expect(snapshots).toBe(1);
    expect((await readIdentityFile(path))?.inDoubt.map((entry) => entry.request)).toEqual([
      1, 2, 3,
    ]);
  });

  it('makes a flush called during a write wait for the next write, which has the newer state', async () => {
    const writer = persister();
    const first = writer.flush();
    await new Promise((resolve) => process.nextTick(resolve)); // the first write has started
    state = { ...state, nextRequest: 5, watermark: 4 };
    const second = writer.flush();
    await first;
    await second;
    expect(snapshots).toBe(2);
    expect(await readIdentityFile(path)).toMatchObject({ nextRequest: 5, watermark: 4 });
  });

  it('rejects the flush when the write fails, and reports background writes to the handler', async () => {
    const failing = new IdentityPersister(
      join(dir, 'missing', 'identity.json'),
      () => state,
      () => undefined,
    );
    await expect(failing.flush()).rejects.toMatchObject({ code: 'ENOENT' });
    const errors: unknown[] = [];
    const background = new IdentityPersister(
      join(dir, 'missing', 'identity.json'),
      () => state,
      (error) => errors.push(error),
    );
    background.schedule();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(errors).toHaveLength(1);
  });

  it('removes the file and writes nothing afterwards', async () => {
    const writer = persister();
    await writer.flush();
    await writer.remove();
    await writer.flush();
    writer.schedule();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await readdir(dir)).toEqual([]);
  });
});
