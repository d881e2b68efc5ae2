import { join } from 'node:path';
import { anchorsOf, checkLinks, linksOf, slugOf } from './markdown-links';

const fixtures = join(__dirname, '__fixtures__', 'links');

describe('checkLinks', () => {
  it('reports a missing file, a missing anchor and a missing reference target, and nothing else', () => {
    const broken = checkLinks(fixtures, ['index.md', 'sub/page.md']);
    expect(broken.map(({ file, line, target }) => `${file}:${line} ${target}`)).toEqual([
      'index.md:8 sub/absent.md',
      'index.md:8 sub/page.md#no-such-heading',
      'index.md:16 sub/also-absent.md',
    ]);
    expect(broken[1].reason).toBe('sub/page.md has no heading "#no-such-heading"');
  });
});

describe('linksOf', () => {
  it('skips links inside inline code and fenced blocks', () => {
    const targets = linksOf('`[a](x.md)`\n```\n[b](y.md)\n```\n[c](z.md "title")').map(
      ({ target }) => target,
    );
    expect(targets).toEqual(['z.md']);
  });
});

describe('anchorsOf', () => {
  it('numbers repeated headings as GitHub does and ignores headings in code', () => {
    expect([...anchorsOf('# A\n## A\n```\n# B\n```\n<a id="c"></a>')]).toEqual(['a', 'a-1', 'c']);
  });

  it('slugs as GitHub: lower case, punctuation dropped, spaces to dashes', () => {
    expect(slugOf("NestJS's transport contract")).toBe('nestjss-transport-contract');
    expect(slugOf('The `once` CLI')).toBe('the-once-cli');
    expect(slugOf("Where PROTOCOL.md's rules are enforced")).toBe(
      'where-protocolmds-rules-are-enforced',
    );
    expect(slugOf('Failover and throughput, measured')).toBe('failover-and-throughput-measured');
  });
});
