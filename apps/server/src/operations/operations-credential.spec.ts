import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  OperationsCredential,
  OperationsCredentialError,
  readOperationsToken,
} from './operations-credential';

const TOKEN = '0123456789abcdef0123';

describe('OperationsCredential', () => {
  const credential = new OperationsCredential(TOKEN);

  it('accepts the token as a bearer token or as the password of basic auth', () => {
    expect(credential.matches(`Bearer ${TOKEN}`)).toBe(true);
    expect(credential.matches(`bearer ${TOKEN}`)).toBe(true);
    const basic = Buffer.from(`prometheus:${TOKEN}`).toString('base64');
    expect(credential.matches(`Basic ${basic}`)).toBe(true);
  });

  it('refuses anything else', () => {
    for (const header of [
      undefined,
      '',
      TOKEN,
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(1)}`,
      `Token ${TOKEN}`,
      `Basic ${Buffer.from(TOKEN).toString('base64')}`,
      'Bearer',
    ]) {
      expect(credential.matches(header)).toBe(false);
    }
  });
});

describe('readOperationsToken', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'once-token-'))));
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('reads the first line, trimmed', async () => {
    await writeFile(join(dir, 't'), `  ${TOKEN}  \nignored\n`);
    expect(readOperationsToken(join(dir, 't'))).toBe(TOKEN);
  });

  it('refuses a missing file and a short token, naming the file and never the content', async () => {
    expect(() => readOperationsToken(join(dir, 'none'))).toThrow(/ENOENT/);
    await writeFile(join(dir, 'short'), 'hunter2\n');
    let caught: unknown;
    try {
      readOperationsToken(join(dir, 'short'));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(OperationsCredentialError);
    expect((caught as Error).message).toContain(join(dir, 'short'));
    expect((caught as Error).message).not.toContain('hunter2');
  });
});
