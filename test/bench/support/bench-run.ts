import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, runNodeProgram } from '../../support/node-program';

/** Built by `npm run build` (nest build bench), like the service the other e2e tests run. */
export const BENCH_MAIN = join(ROOT, 'dist/bench/main.js');

/** The bench's JSON document as JSON.parse gives it, for the specs that read it untyped. */
type ParsedJson = ReturnType<typeof JSON.parse>;

/** What a bench run that exited 0 wrote and printed. */
export interface BenchRun<T> {
  /** The JSON document of `--out`. */
  readonly results: T;
  /** stdout and stderr: the progress lines and the table. */
  readonly output: string;
}

/**
 * A temporary directory for the JSON files of the enclosing `describe`,
 * made before its tests and removed after them. Call it in the `describe`;
 * the function it returns gives the directory once the tests run.
 */
export function benchOutputDir(prefix: string): () => string {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  return () => dir;
}

/**
 * Runs the built bench with `args` and `--out <out>`, killed with its
 * children past `boundMs`; expects it to exit 0, and resolves with the
 * document it wrote and what it printed.
 */
export async function passingBenchRun<T = ParsedJson>(
  args: readonly string[],
  out: string,
  boundMs: number,
): Promise<BenchRun<T>> {
  const { exitCode, output } = await runNodeProgram(BENCH_MAIN, [...args, '--out', out], boundMs);
  // The output only matters when the exit code is wrong; it is then in the failure message.
  expect({ exitCode, output: exitCode === 0 ? '' : output }).toEqual({ exitCode: 0, output: '' });
  const results = JSON.parse(await readFile(out, 'utf8')) as T;
  return { results, output };
}

/** Expects each of `figures` to be a finite number in `results`; a failure names the figure. */
export function expectFiniteFigures(
  results: Readonly<Record<string, unknown>>,
  figures: readonly string[],
): void {
  for (const figure of figures) {
    expect({ figure, finite: Number.isFinite(results[figure]) }).toEqual({
      figure,
      finite: true,
    });
  }
}
