import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClusterKeyError } from './cluster-key.error';
import { ClusterKeyring, parseClusterKeys, readClusterKeyFile } from './cluster-keyring';

const HEX_A = 'a1'.repeat(32);
const HEX_B = 'b2'.repeat(32);

function keyError(run: () => unknown): ClusterKeyError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ClusterKeyError);
    return error as ClusterKeyError;
  }
  throw new Error('expected a ClusterKeyError');
}

describe('the cluster keyring', () => {
  const parts = [Buffer.from('group bytes')];

  it('signs with the first key and verifies under any', () => {
    const old = parseClusterKeys(`${HEX_A}\n`, 'f');
    const rolling = parseClusterKeys(`${HEX_B}\n${HEX_A}\n`, 'f');
    const tag = old.sign('journalGroup', parts);
    expect(tag).toHaveLength(32);
    expect(rolling.verify('journalGroup', parts, tag)).toBe(true);
    expect(old.verify('journalGroup', parts, rolling.sign('journalGroup', parts))).toBe(false);
    expect(rolling.size).toBe(2);
  });

  it('keeps one key per purpose: a lease MAC is no group MAC', () => {
    const ring = parseClusterKeys(HEX_A, 'f');
    expect(ring.verify('lease', parts, ring.sign('journalGroup', parts))).toBe(false);
  });

  it('refuses a tag of another length or another message', () => {
    const ring = parseClusterKeys(HEX_A, 'f');
    const tag = ring.sign('lease', parts);
    expect(ring.verify('lease', parts, tag.subarray(0, 31))).toBe(false);
    expect(ring.verify('lease', [Buffer.from('other')], tag)).toBe(false);
  });

  it('derives the resume-token secret from the signing key and the cluster name, never the key itself', () => {
    const ring = parseClusterKeys(HEX_A, 'f');
    const secret = ring.resumeSecret('once');
    expect(secret).toHaveLength(32);
    expect(secret.equals(parseClusterKeys(`${HEX_A}\n${HEX_B}`, 'f').resumeSecret('once'))).toBe(
      true,
    );
    expect(secret.equals(ring.resumeSecret('other'))).toBe(false);
    expect(secret.equals(parseClusterKeys(HEX_B, 'f').resumeSecret('once'))).toBe(false);
    expect(secret.toString('hex')).not.toContain(HEX_A);
  });

  it('reads hex keys one per line, skipping blank lines and # comments', () => {
    const ring = parseClusterKeys(
      `# new key first\n\n  ${HEX_B.toUpperCase()}  \r\n${HEX_A}\n`,
      'f',
    );
    expect(ring.size).toBe(2);
  });

  it.each([
    ['an empty file', ''],
    ['only comments', '# nothing\n'],
    ['a key too short', 'ab'.repeat(31)],
    ['a line that is not hex', `${HEX_A}\nnot-a-key`],
    ['an odd number of hex digits', `${HEX_A}0`],
  ])('refuses %s as CLUSTER_KEY_INVALID, without quoting a key', (_what, text) => {
    const error = keyError(() => parseClusterKeys(text, '/etc/once/cluster.key'));
    expect(error.code).toBe('CLUSTER_KEY_INVALID');
    expect(error.message).toContain('/etc/once/cluster.key');
    expect(error.message).not.toContain(HEX_A);
    expect(error.message).not.toContain('abab');
  });

  it('lets a retired key verify only the groups stored at or below its last sequence, and no lease value', () => {
    const old = parseClusterKeys(HEX_A, 'f');
    const rotated = parseClusterKeys(`${HEX_B}\n${HEX_A} through=120\n`, 'f');
    const group = old.sign('journalGroup', parts);
    expect(rotated.verify('journalGroup', parts, group, 120)).toBe(true);
    expect(rotated.verify('journalGroup', parts, group, 121)).toBe(false);
    expect(rotated.verify('lease', parts, old.sign('lease', parts))).toBe(false);
    expect(rotated.verify('journalGroup', parts, rotated.sign('journalGroup', parts), 9_999)).toBe(
      true,
    );
  });

  it.each([
    ['the signing key retired', `${HEX_A} through=5`],
    ['a retirement that is not a sequence', `${HEX_B}\n${HEX_A} through=x`],
    ['a sequence 0', `${HEX_B}\n${HEX_A} through=0`],
    ['more words after the key', `${HEX_B}\n${HEX_A} through=5 extra`],
  ])('refuses %s as CLUSTER_KEY_INVALID', (_what, text) => {
    expect(keyError(() => parseClusterKeys(text, 'f')).code).toBe('CLUSTER_KEY_INVALID');
  });

  it('refuses raw keys under 32 bytes', () => {
    expect(keyError(() => new ClusterKeyring([Buffer.alloc(31)])).code).toBe('CLUSTER_KEY_INVALID');
    expect(keyError(() => new ClusterKeyring([])).code).toBe('CLUSTER_KEY_INVALID');
  });

  it('reads a key file, and names one it cannot read as CLUSTER_KEY_UNREADABLE', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'once-key-'));
    try {
      const file = join(dir, 'cluster.key');
      await writeFile(file, `${HEX_A}\n`);
      expect(readClusterKeyFile(file).size).toBe(1);
      const missing = keyError(() => readClusterKeyFile(join(dir, 'absent.key')));
      expect(missing.code).toBe('CLUSTER_KEY_UNREADABLE');
      expect(missing.message).toMatch(/absent\.key \(ENOENT\)/);
      expect(keyError(() => readClusterKeyFile(dir)).code).toBe('CLUSTER_KEY_UNREADABLE');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
