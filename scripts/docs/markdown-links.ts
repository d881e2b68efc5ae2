import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** One link of a markdown file that does not resolve. */
export interface BrokenLink {
  /** The file holding the link, relative to the root given to {@link checkLinks}. */
  readonly file: string;
  /** 1-based line of the link. */
  readonly line: number;
  /** The link's target as written. */
  readonly target: string;
  /** Why it does not resolve. */
  readonly reason: string;
}

/** A link found in a markdown file, outside code. */
export interface MarkdownLink {
  readonly line: number;
  readonly target: string;
}

/**
 * The links of a markdown text: inline `[text](target)` and reference
 * definitions `[name]: target`, skipping fenced code blocks and inline code,
 * where a bracket is code, not a link.
 */
export function linksOf(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((raw, index) => {
    const fenceMark = /^\s*(```+|~~~+)/.exec(raw)?.[1];
    if (fenceMark !== undefined) {
      if (fence === undefined) fence = fenceMark[0];
      else if (fenceMark[0] === fence) fence = undefined;
      return;
    }
    if (fence !== undefined) return;
    const line = raw.replace(/`[^`]*`/g, (code) => ' '.repeat(code.length));
    for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ line: index + 1, target: match[1] });
    }
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/.exec(line);
    if (definition) links.push({ line: index + 1, target: definition[1] });
  });
  return links;
}

/**
 * The anchors GitHub gives a markdown file's headings: lower case, spaces to
 * `-`, punctuation dropped, a repeated slug suffixed `-1`, `-2`, … Explicit
 * `<a id>`/`<a name>` anchors count too.
 */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const fenceMark = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (fenceMark !== undefined) {
      if (fence === undefined) fence = fenceMark[0];
      else if (fenceMark[0] === fence) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    for (const match of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1]);
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slugOf(heading[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** GitHub's slug of a heading's text. */
export function slugOf(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .toLowerCase()
    .trim()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/**
 * Every relative link of `files` (paths relative to `root`) that does not
 * resolve: a file or directory that does not exist, or an anchor that no
 * heading of the target markdown file has. Absolute URLs (`https:`,
 * `mailto:`) are not fetched.
 */
export function checkLinks(root: string, files: readonly string[]): BrokenLink[] {
  const broken: BrokenLink[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchorsIn = (path: string): Set<string> => {
    let anchors = anchorCache.get(path);
    if (!anchors) {
      anchors = anchorsOf(readFileSync(path, 'utf8'));
      anchorCache.set(path, anchors);
    }
    return anchors;
  };
  for (const file of files) {
    const absolute = resolve(root, file);
    for (const { line, target } of linksOf(readFileSync(absolute, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const hash = target.indexOf('#');
      const pathPart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
      const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const destination = pathPart === '' ? absolute : resolve(dirname(absolute), pathPart);
      const report = (reason: string): void => {
        broken.push({ file, line, target, reason });
      };
      if (!existsSync(destination)) {
        report(`${relative(root, destination)} does not exist`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      if (statSync(destination).isDirectory() || !destination.endsWith('.md')) {
        if (!/^L\d+(-L\d+)?$/.test(anchor)) report(`an anchor into a file that is not markdown`);
        continue;
      }
      if (!anchorsIn(destination).has(anchor)) {
        report(`${relative(root, destination)} has no heading "#${anchor}"`);
      }
    }
  }
  return broken;
}

/**
 * The markdown files the manual is made of, relative to `root`: the README,
 * CHANGELOG and UPGRADING, everything under docs/, and the README of every
 * package, example, the bench, the soak and the deploy recipes.
 */
export function manualFiles(root: string): string[] {
  const files = ['README.md', 'CHANGELOG.md', 'UPGRADING.md'].filter((file) =>
    existsSync(join(root, file)),
  );
  const walk = (dir: string): void => {
    if (!existsSync(join(root, dir))) return;
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!['node_modules', 'dist', '__fixtures__', 'api'].includes(entry.name)) walk(path);
      } else if (entry.name.endsWith('.md')) {
        files.push(path);
      }
    }
  };
  walk('docs');
  for (const parent of ['libs', 'examples', 'apps']) {
    if (!existsSync(join(root, parent))) continue;
    for (const entry of readdirSync(join(root, parent)).sort()) {
      const readme = join(parent, entry, 'README.md');
      if (existsSync(join(root, readme))) files.push(readme);
    }
  }
  for (const other of ['bench/README.md', 'soak/README.md']) {
    if (existsSync(join(root, other))) files.push(other);
  }
  walk('deploy');
  return files;
}
