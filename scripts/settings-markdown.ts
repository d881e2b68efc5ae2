import { type SettingSpec } from '@once/settings';
import { SERVICE_SETTINGS } from '../apps/server/src/config/server-settings';

/**
 * The settings tables of the configuration reference
 * (docs/operating/configuration.md), rendered from the rows the reference
 * service reads: the packages' (`@once/settings`) and its own
 * (apps/server/src/config/server-settings.ts). A repository script, used by
 * `npm run settings:readme` and the docs check; no package ships it.
 */

/** How the line before the generated tables starts. */
const README_BEGIN_PREFIX = '<!-- settings:begin';

/** The README lines between which the generated tables stand. */
export const README_BEGIN_MARKER =
  '<!-- settings:begin (generated from libs/settings/src/settings.ts and apps/server/src/config/server-settings.ts by `npm run settings:readme`) -->';
export const README_END_MARKER = '<!-- settings:end -->';

/** The markdown the README holds between its markers: the settings table, then the aliases table. */
export function renderSettingsMarkdown(
  settings: readonly SettingSpec[] = SERVICE_SETTINGS,
): string {
  const rows = settings.map((spec) => [
    code(spec.name),
    spec.env ? code(spec.env) : '-',
    code(spec.flag),
    defaultOf(spec),
    takes(spec),
    spec.unit ?? '-',
    spec.layer,
    spec.description,
  ]);
  const aliases = settings.flatMap((spec) =>
    spec.aliases
      ? [
          [
            spec.aliases.names.map(code).join(', ') || '-',
            spec.aliases.env ? code(spec.aliases.env) : '-',
            spec.aliases.flag ? code(spec.aliases.flag) : '-',
            code(spec.name),
          ],
        ]
      : [],
  );
  return [
    table(['setting', 'variable', 'flag', 'default', 'takes', 'unit', 'layer', 'meaning'], rows),
    '',
    'Old names, still accepted (deprecated; a warning names the new one):',
    '',
    table(['old code name', 'old variable', 'old flag', 'now'], aliases),
  ].join('\n');
}

/**
 * `readme` with the text between its markers replaced by
 * {@link renderSettingsMarkdown}; throws when a marker is missing.
 */
export function rewriteReadmeSettings(readme: string): string {
  const { before, after } = splitAtMarkers(readme);
  return `${before}${README_BEGIN_MARKER}\n\n${renderSettingsMarkdown()}\n\n${README_END_MARKER}${after}`;
}

/** The text the README holds between its markers (without the blank lines around it). */
export function readmeSettingsSection(readme: string): string {
  return splitAtMarkers(readme).between.trim();
}

/**
 * Splits at the markers. The begin marker is found by its start and runs to
 * the end of its comment, so that a page whose marker names other sources
 * (written before they moved) is still rewritten, marker included.
 */
function splitAtMarkers(readme: string): { before: string; between: string; after: string } {
  const begin = readme.indexOf(README_BEGIN_PREFIX);
  const beginEnd = begin < 0 ? -1 : readme.indexOf('-->', begin);
  const end = readme.indexOf(README_END_MARKER);
  if (begin < 0 || beginEnd < 0 || end < beginEnd) {
    throw new Error(`README has no "${README_BEGIN_MARKER}" ... "${README_END_MARKER}" section`);
  }
  return {
    before: readme.slice(0, begin),
    between: readme.slice(beginEnd + '-->'.length, end),
    after: readme.slice(end + README_END_MARKER.length),
  };
}

function defaultOf(spec: SettingSpec): string {
  if (spec.defaultText !== undefined) return spec.defaultText;
  if (spec.kind === 'switch') return 'off';
  return spec.default === undefined ? '-' : code(String(spec.default));
}

function takes(spec: SettingSpec): string {
  const range = (): string =>
    spec.max === undefined || spec.max === Number.MAX_SAFE_INTEGER
      ? `>= ${spec.min ?? 0}`
      : `${spec.min ?? 0}..${spec.max}`;
  switch (spec.kind) {
    case 'integer':
      return `integer ${range()}`;
    case 'bytes':
      return `size ${range()} (KiB, MiB)`;
    case 'duration':
      return `duration ${range()} (ms, s, m, h, d)`;
    case 'choice':
      return (spec.choices ?? []).map(code).join(', ');
    case 'switch':
      return 'flag only';
    case 'text':
    case 'secret':
      return 'text';
    case 'name':
      return 'letters, digits, `-`, `_` (1 to 64)';
    case 'address':
      return '`host:port`';
    case 'nats-urls':
      return 'comma-separated `nats://host:port` or `tls://host:port`';
  }
}

function code(text: string): string {
  return `\`${text}\``;
}

/** A markdown table aligned the way prettier aligns one, so `prettier --check` keeps it. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(3, title.length, ...rows.map((row) => row[column].length)),
  );
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join(
    '\n',
  );
}
