import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { EVICTION_REASON_NAMES, STATUS_NAMES } from '../wire-constants';
import { ERROR_SECTIONS, cataloguedCodes } from './error-catalogue';

const root = join(__dirname, '..', '..', '..', '..');

/**
 * The ways the source raises or answers with a code: an error class's
 * `code = 'X'` field, a `code: 'X'` refusal, an error constructed or a super
 * called with the code first, a refusal helper given its fallback code.
 */
const RAISING = [
  /\bcode\s*[:=]\s*'([A-Z][A-Z0-9_]+)'/g,
  /\bnew\s+\w*(?:Error|Exception)\(\s*'([A-Z][A-Z0-9_]+)'/g,
  /\bsuper\(\s*'([A-Z][A-Z0-9_]+)'/g,
  /\brefusalOf\([^)]*'([A-Z][A-Z0-9_]+)'/g,
  /^\s*\| '([A-Z][A-Z0-9_]+)'$/gm, // a member of a code union type (ProtocolErrorCode)
];

/**
 * Codes that match the patterns and are not once's: Node's errno codes the
 * source compares against, and the reference service's own business refusals
 * (a team's codes, documented with its commands).
 */
const NOT_ONCE_CODES = new Set([
  'LOGOUT', // an operation's name, given to RequestTimeoutError
  'EACCES',
  'EEXIST',
  'EISDIR',
  'ENOENT',
  'ENOTEMPTY',
  'EPERM',
  'INSUFFICIENT_FUNDS',
  'INVALID_AMOUNT',
  'ACCOUNT_EXISTS',
  'ACCOUNT_NOT_FOUND',
  'DUPLICATE_REFERENCE',
  'STREAM_EXISTS',
  'STREAM_NOT_FOUND',
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === '__fixtures__' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** Every code the source of the packages and the reference service raises, with a file. */
function codesInSource(): Map<string, string> {
  const found = new Map<string, string>();
  const dirs = [
    ...readdirSync(join(root, 'libs')).map((name) => join(root, 'libs', name, 'src')),
    join(root, 'apps', 'server', 'src'),
  ];
  for (const file of dirs.flatMap(sourceFiles)) {
    if (file.includes('error-catalogue')) continue;
    const text = readFileSync(file, 'utf8');
    for (const pattern of RAISING) {
      for (const match of text.matchAll(pattern)) {
        if (!found.has(match[1])) found.set(match[1], relative(root, file));
      }
    }
  }
  return found;
}

describe('the error catalogue', () => {
  const catalogued = new Set(cataloguedCodes());

  it('lists every code the source raises (add the missing ones with their meaning and remedy)', () => {
    const missing = [...codesInSource()]
      .filter(([code]) => !catalogued.has(code) && !NOT_ONCE_CODES.has(code))
      .map(([code, file]) => `${code} (${file})`);
    expect(missing).toEqual([]);
  });

  it("lists every protocol status and eviction reason by the protocol's name", () => {
    const names = [...Object.values(STATUS_NAMES), ...Object.values(EVICTION_REASON_NAMES)];
    expect(names.filter((name) => name !== 'OK' && !catalogued.has(name))).toEqual([]);
  });

  it('finds codes the way the source raises them (the scan cannot pass by finding nothing)', () => {
    const found = codesInSource();
    for (const code of [
      'JOURNAL_BUSY',
      'DUPLICATE_PATTERN',
      'FIELD_OUT_OF_RANGE',
      'QUERY_FAILED',
    ]) {
      expect(found.has(code)).toBe(true);
    }
  });

  it('gives every entry a meaning and what to do, and every table row at least one code', () => {
    for (const section of ERROR_SECTIONS) {
      for (const part of section.parts) {
        if (!('codes' in part)) continue;
        for (const entry of part.codes) {
          expect(entry.codes.length).toBeGreaterThan(0);
          expect(entry.meaning.trim()).not.toBe('');
          expect({ codes: entry.codes, remedy: entry.remedy?.trim() || 'missing' }).not.toEqual({
            codes: entry.codes,
            remedy: 'missing',
          });
        }
      }
    }
  });
});
