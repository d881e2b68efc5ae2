import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';

/** A `ts` code block of a markdown file. */
export interface CodeExample {
  /** 1-based line of the block's opening fence. */
  readonly line: number;
  readonly code: string;
}

/**
 * The ```ts (or ```typescript) blocks of a markdown text. A block whose fence
 * says `ts ignore` is prose in the shape of code (an excerpt with `…`), and
 * is left out.
 */
export function tsBlocksOf(markdown: string): CodeExample[] {
  const blocks: CodeExample[] = [];
  const lines = markdown.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const open = /^```(ts|typescript)(\s+ignore)?\s*$/.exec(lines[index]);
    if (!open) continue;
    const start = index;
    const body: string[] = [];
    for (index++; index < lines.length && !lines[index].startsWith('```'); index++) {
      body.push(lines[index]);
    }
    if (!open[2]) blocks.push({ line: start + 1, code: body.join('\n') });
  }
  return blocks;
}

/**
 * The type errors of `examples`, each compiled as a module of its own with
 * the repository's compiler options, so `@once/*` resolves to the workspace
 * packages' sources. The files are written under node_modules/.cache (so
 * imports of NestJS and the rest resolve from the repository) and removed.
 */
export function typeErrorsOf(
  root: string,
  examples: readonly { readonly name: string; readonly code: string }[],
): string[] {
  const configPath = join(root, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const dir = join(root, 'node_modules', '.cache', `once-docs-examples-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  try {
    const files = examples.map(({ name, code }) => {
      const file = join(dir, `${name.replace(/[^A-Za-z0-9]+/g, '-')}.ts`);
      writeFileSync(file, code);
      return file;
    });
    const program = ts.createProgram(files, {
      ...parsed.options,
      noEmit: true,
      types: ['node'],
    });
    return ts
      .getPreEmitDiagnostics(program)
      .filter(
        (diagnostic) => diagnostic.file === undefined || files.includes(diagnostic.file.fileName),
      )
      .map((diagnostic) => {
        const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
        if (!diagnostic.file || diagnostic.start === undefined) return message;
        const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
        const index = files.indexOf(diagnostic.file.fileName);
        return `${examples[index].name}, line ${line + 1} of the block: ${message}`;
      });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
