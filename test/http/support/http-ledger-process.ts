import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { typescriptRegisterFile } from '@once/testing';
import { ROOT } from '../../support/node-program';
import { type Platform } from './http-ledger-app';

/** Prefix of the line http-ledger.main.ts reports on stdout. */
export const HTTP_LEDGER_MARK = 'http-ledger ';

/**
 * The HTTP ledger app as a child process: a test kills it with SIGKILL
 * (nothing drains, no snapshot is written) and starts it again on the same
 * data directory, so the restart replays the journal.
 */
export class HttpLedgerProcess {
  private readonly exited: Promise<void>;
  private ended = false;

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    this.exited = new Promise((resolve) =>
      child.once('exit', () => {
        this.ended = true;
        resolve();
      }),
    );
  }

  /** Starts the app on `dataDir` (with `env` over this process's); resolves once it serves, with its URL. */
  static async start(
    platform: Platform,
    dataDir: string,
    env: Readonly<Record<string, string>> = {},
  ): Promise<HttpLedgerProcess> {
    const child = spawn(
      process.execPath,
      ['-r', typescriptRegisterFile(), join(__dirname, 'http-ledger.main.ts')],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          ...env,
          ONCE_DATA_DIR: dataDir,
          HTTP_PLATFORM: platform,
          NO_COLOR: '1',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (line.startsWith(HTTP_LEDGER_MARK)) {
          resolve((JSON.parse(line.slice(HTTP_LEDGER_MARK.length)) as { url: string }).url);
        } else {
          output += `${line}\n`;
        }
      });
      child.once('exit', (code, signal) =>
        reject(
          new Error(`the app exited (code ${code}, signal ${signal}) before serving:\n${output}`),
        ),
      );
    });
    return new HttpLedgerProcess(child, url);
  }

  /** SIGKILL: the process ends where it is, as in a power cut of the process. */
  async kill(): Promise<void> {
    if (this.ended) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }
}
