import {
  ERROR_REFERENCE_PREAMBLE,
  ERROR_SECTIONS,
  type ErrorCodeTable,
  type ErrorSection,
} from '../../libs/protocol/src/error-catalogue/error-catalogue';

/** Where the generated errors reference is written, relative to the repository. */
export const ERROR_REFERENCE_PATH = 'docs/reference/errors.md';

/**
 * docs/reference/errors.md, rendered from the catalogue in `@once/protocol`
 * (before prettier aligns its tables): the preamble, then each section's
 * prose and tables in order.
 */
export function renderErrorReference(
  sections: readonly ErrorSection[] = ERROR_SECTIONS,
  preamble: string = ERROR_REFERENCE_PREAMBLE,
): string {
  const out = [
    '# Error codes',
    '',
    '<!-- generated from libs/protocol/src/error-catalogue/error-catalogue.ts by `npm run docs:generate`; edit the catalogue, not this file -->',
    '',
    preamble,
  ];
  for (const section of sections) {
    out.push('', `## ${section.title}`);
    for (const part of section.parts) {
      out.push('', 'codes' in part ? renderTable(part) : part.text);
    }
  }
  return `${out.join('\n')}\n`;
}

function renderTable(table: ErrorCodeTable): string {
  const withStatus = table.codes.some((entry) => entry.status !== undefined);
  const header = [
    'code',
    ...(withStatus ? ['status'] : []),
    table.meaningTitle ?? 'what it means',
    'what to do',
  ];
  const rows = table.codes.map((entry) => [
    entry.codes.map((code) => `\`${code}\``).join(', '),
    ...(withStatus ? [entry.status ?? ''] : []),
    entry.meaning,
    entry.remedy,
  ]);
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell) => cell.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
