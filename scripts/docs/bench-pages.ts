import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/** Where published bench results are kept, and where their pages go (relative to the repository). */
export const PUBLISHED_RESULTS_DIR = 'bench/results/published';
export const MEASURED_PAGE = 'docs/performance/measured.md';
export const CHART_DIR = 'docs/performance/charts';

/** A bench JSON document as `npm run bench` writes it (only the parts the pages read). */
interface BenchJson {
  readonly environment?: {
    readonly date?: string;
    readonly node?: string;
    readonly cpuCount?: number;
    readonly cpuModel?: string;
    readonly command?: string;
    readonly commit?: string;
    readonly version?: string;
  };
  readonly settings?: { readonly profile?: string };
  readonly [key: string]: unknown;
}

/** One published result: its name (the file's stem) and its document. */
export interface PublishedResult {
  readonly name: string;
  readonly document: BenchJson;
}

/** A generated file: its path relative to the repository, and its text. */
export interface GeneratedFile {
  readonly path: string;
  readonly text: string;
}

/**
 * The series drawn as curves: the x column, then the y columns, each its own
 * chart. A series of another name, or with fewer than two rows, gets a
 * table only.
 */
const CURVES: Readonly<Record<string, { x: string; y: readonly string[] }>> = {
  throughput_by_connections: { x: 'connections', y: ['rps', 'p99_ms'] },
  memory_by_sessions: { x: 'sessions', y: ['bytes_per_session'] },
  restart_by_journal_ops: {
    x: 'journal_ops',
    y: ['restart_ms_without_snapshot', 'restart_ms_with_snapshot'],
  },
  module_state_by_entities: { x: 'entities', y: ['rps', 'p99_ms_at_half_peak', 'restart_ms'] },
};

/** The published results, sorted by name; none when the directory is absent. */
export function publishedResults(root: string): PublishedResult[] {
  const dir = join(root, PUBLISHED_RESULTS_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({
      name: basename(file, '.json'),
      document: JSON.parse(readFileSync(join(dir, file), 'utf8')) as BenchJson,
    }));
}

/**
 * docs/performance/measured.md and its SVG charts, from the published
 * results: per result, where and on what it was measured, its figures, the
 * targets, and each series as a table and curves.
 */
export function renderBenchPages(results: readonly PublishedResult[]): GeneratedFile[] {
  const charts: GeneratedFile[] = [];
  const out = [
    '# Measured',
    '',
    `<!-- generated from ${PUBLISHED_RESULTS_DIR}/*.json by \`npm run docs:generate\`; publish a run with \`npm run bench:publish -- <name>\` -->`,
    '',
    'The figures of the published bench runs, each with the commit and date it was measured',
    'on. `npm run bench` writes `bench/results/latest.json`; `npm run bench:publish -- <name>`',
    `copies it to \`${PUBLISHED_RESULTS_DIR}/<name>.json\` and regenerates this page and its`,
    'charts. The method is in [bench/README.md](../../bench/README.md); what the figures mean',
    'is in [Performance](README.md) and [How cost grows](scaling.md).',
  ];
  if (results.length === 0) {
    out.push('', 'No run is published yet.');
  }
  for (const { name, document } of results) {
    const env = document.environment ?? {};
    out.push('', `## ${name}`, '');
    out.push(
      `Measured on commit ${env.commit ? `\`${env.commit}\`` : '(not recorded)'}` +
        `${env.version ? `, version ${env.version}` : ''}, ${env.date ?? '(date not recorded)'};` +
        ` Node ${env.node ?? '?'}, ${env.cpuCount ?? '?'} × ${env.cpuModel ?? '?'};` +
        ` profile \`${document.settings?.profile ?? '?'}\`; \`${env.command ?? '?'}\`.`,
    );
    const figures = Object.entries(document).filter(
      (entry): entry is [string, number] => typeof entry[1] === 'number',
    );
    if (figures.length > 0) {
      out.push(
        '',
        table(
          ['figure', 'value'],
          figures.map(([key, value]) => [`\`${key}\``, num(value)]),
        ),
      );
    }
    const targets = document.targets;
    if (targets && typeof targets === 'object' && !Array.isArray(targets)) {
      const rows = Object.entries(
        targets as Record<string, { target?: string | number; met?: boolean }>,
      ).map(([key, check]) => [
        `\`${key}\``,
        String(check.target ?? '-'),
        check.met ? 'yes' : 'no',
      ]);
      out.push('', '### Targets', '', table(['figure', 'target', 'met'], rows));
    }
    for (const [key, value] of Object.entries(document)) {
      if (!Array.isArray(value) || value.length === 0 || !/^[a-z0-9_]+$/.test(key)) continue;
      const rows = value.filter((row): row is Record<string, unknown> => isFlat(row));
      if (rows.length !== value.length) continue;
      const columns = Object.keys(rows[0]);
      out.push('', `### ${key.replace(/_/g, ' ')}`, '');
      out.push(
        table(
          columns.map((column) => `\`${column}\``),
          rows.map((row) => columns.map((column) => cell(row[column]))),
        ),
      );
      const curve = CURVES[key];
      if (!curve || rows.length < 2) continue;
      for (const y of curve.y) {
        const points = rows
          .map((row) => [row[curve.x], row[y]])
          .filter((point): point is [number, number] => point.every((v) => typeof v === 'number'));
        if (points.length < 2) continue;
        const path = `${CHART_DIR}/${name}-${key}-${y}.svg`;
        charts.push({ path, text: svgChart(points, curve.x, y, `${name}: ${y} by ${curve.x}`) });
        out.push('', `![${y} by ${curve.x}](charts/${basename(path)})`);
      }
    }
  }
  return [{ path: MEASURED_PAGE, text: `${out.join('\n')}\n` }, ...charts];
}

function isFlat(row: unknown): boolean {
  return (
    typeof row === 'object' &&
    row !== null &&
    Object.values(row).every(
      (v) => v === null || ['number', 'string', 'boolean'].includes(typeof v),
    )
  );
}

function cell(value: unknown): string {
  if (typeof value === 'number') return num(value);
  if (typeof value === 'string' || typeof value === 'boolean') return String(value);
  return '-';
}

/** A figure as a reader wants it: integers above 100 with separators, else three significant digits. */
function num(value: number): string {
  if (Number.isInteger(value) || Math.abs(value) >= 100)
    return Math.round(value).toLocaleString('en-US');
  return Number(value.toPrecision(3)).toString();
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/**
 * A line chart of `points` as a small standalone SVG: a log x axis when x
 * spans more than a factor of 20 (connections, sessions, entities grow
 * tenfold a step), a linear y axis from 0, the points marked and labelled.
 */
export function svgChart(
  points: readonly (readonly [number, number])[],
  xName: string,
  yName: string,
  title: string,
): string {
  const width = 480;
  const height = 260;
  const left = 64;
  const right = 16;
  const top = 32;
  const bottom = 40;
  const xs = points.map(([x]) => x);
  const ys = points.map(([, y]) => y);
  const xMin = Math.min(...xs);
  const xMax = Math.max(...xs);
  const logX = xMin > 0 && xMax / xMin > 20;
  const fx = (x: number): number => (logX ? Math.log10(x) : x);
  const span = fx(xMax) - fx(xMin) || 1;
  const yMax = Math.max(...ys) * 1.1 || 1;
  const px = (x: number): number => left + ((fx(x) - fx(xMin)) / span) * (width - left - right);
  const py = (y: number): number => top + (1 - y / yMax) * (height - top - bottom);
  const r = (v: number): string => v.toFixed(1);
  const path = points.map(([x, y], i) => `${i === 0 ? 'M' : 'L'}${r(px(x))},${r(py(y))}`).join(' ');
  const marks = points
    .map(
      ([x, y]) =>
        `  <circle cx="${r(px(x))}" cy="${r(py(y))}" r="3"/>\n` +
        `  <text x="${r(px(x))}" y="${r(py(y) - 8)}" text-anchor="middle">${esc(num(y))}</text>\n` +
        `  <text x="${r(px(x))}" y="${height - bottom + 16}" text-anchor="middle">${esc(num(x))}</text>`,
    )
    .join('\n');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `  <title>${esc(title)}</title>`,
    `  <rect width="${width}" height="${height}" fill="white"/>`,
    `  <text x="${width / 2}" y="18" text-anchor="middle" font-size="13">${esc(title)}</text>`,
    `  <line x1="${left}" y1="${height - bottom}" x2="${width - right}" y2="${height - bottom}" stroke="black"/>`,
    `  <line x1="${left}" y1="${top}" x2="${left}" y2="${height - bottom}" stroke="black"/>`,
    `  <text x="${width / 2}" y="${height - 6}" text-anchor="middle">${esc(xName)}${logX ? ' (log scale)' : ''}</text>`,
    `  <text x="14" y="${height / 2}" text-anchor="middle" transform="rotate(-90 14 ${height / 2})">${esc(yName)}</text>`,
    `  <path d="${path}" fill="none" stroke="#1f6feb" stroke-width="2"/>`,
    `<g fill="#1f6feb">`,
    marks,
    `</g>`,
    `</svg>`,
    '',
  ].join('\n');
}

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
