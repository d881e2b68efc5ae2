import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomClientId } from '@once/protocol';
import { IdentityFileCorruptError } from './errors/identity-file-corrupt.error';
import {
  identityTempPath,
  readIdentityFile,
  removeIdentityFile,
  writeIdentityFile,
} from './identity-file';
import { encodeIdentityRecord, type IdentityRecord } from './identity-record';

function record(overrides: Partial<IdentityRecord> = {}): IdentityRecord {
  return {
    clientId: randomClientId(),
    userId: 1,
    epoch: 12,
    resumeToken: Buffer.from('00112233445566778899aabbccddeeff', 'hex'),
    nextRequest: 10,
    watermark: 6,
    registering: false,
    inDoubt: [
      { request: 7, body: Buffer.from('{"pattern":"ledger.deposit","data":{"amount":1}}') },
      { request: 9, body: Buffer.from([0xe2, 0x82, 0xac, 0x00, 0xff]) },
    ],
    ...overrides,
  };
}

describe('identity file', () => {
  let dir: string;
  let path: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'once-sdk-identity-spec-'));
    path = join(dir, 'identity.json');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('reads back exactly what was written, body bytes included', async () => {
    const written = record();
    await writeIdentityFile(path, written);
    await expect(readIdentityFile(path)).resolves.toEqual(written);
  });

  it('round-trips an identity without a session and without commands in doubt', async () => {
    const written = record({
      epoch: 0,
      resumeToken: undefined,
      nextRequest: 1,
      watermark: 0,
      inDoubt: [],
    });
    await writeIdentityFile(path, written);
    await expect(readIdentityFile(path)).resolves.toEqual(written);
  });

  it('is undefined when there is no file', async () => {
    await expect(readIdentityFile(path)).resolves.toBeUndefined();
  });

  it('replaces the previous contents and leaves no temporary file behind', async () => {
    await writeIdentityFile(path, record({ nextRequest: 10 }));
    const second = record({ nextRequest: 11, watermark: 8, inDoubt: [] });
    await writeIdentityFile(path, second);
    await expect(readIdentityFile(path)).resolves.toEqual(second);
    expect(await readdir(dir)).toEqual(['identity.json']);
  });

  it('ignores a leftover temporary file (a crash between write and rename)', async () => {
    const committed = record();
    await writeIdentityFile(path, committed);
    await writeFile(identityTempPath(path), '{"torn":');
    await expect(readIdentityFile(path)).resolves.toEqual(committed);
    // The next write goes through the same temporary name and still lands whole.
    const next = record({ nextRequest: 12, inDoubt: [] });
    await writeIdentityFile(path, next);
    await expect(readIdentityFile(path)).resolves.toEqual(next);
  });

  it('a leftover temporary file alone is no identity', async () => {
    await writeFile(identityTempPath(path), encodeIdentityRecord(record()));
    await expect(readIdentityFile(path)).resolves.toBeUndefined();
  });

  it.each([
    ['not JSON', '{"version":1,'],
    ['not an object', '[1,2]'],
    [
      'another version',
      JSON.stringify({ ...JSON.parse(encodeIdentityRecord(record())), version: 2 }),
    ],
    ['a zero client id', encodeIdentityRecord(record({ clientId: '0'.repeat(32) }))],
    ['a watermark at nextRequest', encodeIdentityRecord(record({ watermark: 10 }))],
    ['a token without a session', encodeIdentityRecord(record({ epoch: 0 }))],
    ['a session without a token', encodeIdentityRecord(record({ resumeToken: undefined }))],
    [
      'in-doubt requests out of order',
      encodeIdentityRecord(
        record({
          inDoubt: [
            { request: 9, body: Buffer.from('a') },
            { request: 7, body: Buffer.from('b') },
          ],
        }),
      ),
    ],
    [
      'an in-doubt request at nextRequest',
      encodeIdentityRecord(record({ inDoubt: [{ request: 10, body: Buffer.from('a') }] })),
    ],
    [
      'a body that is not base64',
      encodeIdentityRecord(record()).replace(/"body":"[^"]*"/, '"body":"%%%"'),
    ],
  ])('refuses a file with %s as corrupt, naming the file', async (_, text) => {
    await writeFile(path, text);
    const failure = await readIdentityFile(path).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(IdentityFileCorruptError);
    expect(failure).toMatchObject({ code: 'IDENTITY_FILE_CORRUPT', path });
    expect((failure as Error).message).toContain(path);
  });

  it('is removed with its temporary file', async () => {
    await writeIdentityFile(path, record());
    await writeFile(identityTempPath(path), 'x');
    await removeIdentityFile(path);
    expect(await readdir(dir)).toEqual([]);
  });

  it('is written as one JSON document that names its version', async () => {
    await writeIdentityFile(path, record());
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ version: 1, epoch: 12 });
  });
});
