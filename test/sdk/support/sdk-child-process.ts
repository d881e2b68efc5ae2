import { type ChildProcess, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { typescriptRegisterFile } from '@once/testing';

/** What the child reports on stdout, one JSON object a line. */
export type ChildMessage =
  | { type: 'ready'; clientId: string }
  | { type: 'ack'; balance: number }
  | { type: 'error'; code: string }
  | { type: 'fatal'; message: string };

/** How the child runs: it deposits `count` times 1 into `account`, pipelined. */
export interface ChildConfig {
  port: number;
  identityFile: string;
  account: string;
  count: number;
  inFlightMax: number;
}

const ROOT = resolve(__dirname, '../../..');

/**
 * The child: connects with the identity file, reports `ready`, waits for a
 * `go` line on stdin (so the test can set the stage first), then issues every
 * deposit at once and reports each outcome.
 */
const CHILD_SCRIPT = String.raw`'use strict';
const path = require('node:path');
const readline = require('node:readline');
const { OnceClient } = require(path.join(process.env.ONCE_ROOT, 'libs/sdk/src'));
const config = JSON.parse(process.argv[2]);
const out = (message) => process.stdout.write(JSON.stringify(message) + '\n');

(async () => {
  const client = await OnceClient.connect({
    port: config.port,
    username: 'admin',
    password: 'pw',
    identityFile: config.identityFile,
    inFlightMax: config.inFlightMax,
    reconnect: { initialDelayMs: 10, delayMsMax: 100 },
  });
  out({ type: 'ready', clientId: client.identity.clientId });
  const input = readline.createInterface({ input: process.stdin });
  for await (const line of input) if (line.trim() === 'go') break;
  for (let i = 0; i < config.count; i++) {
    client.command('ledger.deposit', { account: config.account, amount: 1 }).then(
      (result) => out({ type: 'ack', balance: result.balance }),
      (error) => out({ type: 'error', code: error.code }),
    );
  }
})().catch((error) => {
  out({ type: 'fatal', message: String((error && error.stack) || error) });
  process.exit(1);
});
`;

/** An SDK client in its own process, to be SIGKILLed mid-flight. */
export class SdkChildProcess {
  readonly messages: ChildMessage[] = [];
  private readonly waiters: Array<() => void> = [];
  private readonly exitPromise: Promise<void>;
  private stderr = '';

  private constructor(private readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        this.messages.push(JSON.parse(line) as ChildMessage);
      } catch {
        this.stderr += `${line}\n`;
      }
      for (const wake of this.waiters.splice(0)) wake();
    });
    child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    this.exitPromise = new Promise((done) => child.once('exit', () => done()));
  }

  static async start(config: ChildConfig): Promise<SdkChildProcess> {
    const dir = tmpdir();
    const script = join(dir, `once-sdk-child-${process.pid}.js`);
    await writeFile(script, CHILD_SCRIPT);
    const child = spawn(
      process.execPath,
      ['-r', typescriptRegisterFile(), script, JSON.stringify(config)],
      {
        cwd: ROOT,
        env: { ...process.env, ONCE_ROOT: ROOT },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    return new SdkChildProcess(child);
  }

  get acks(): number {
    return this.messages.filter((message) => message.type === 'ack').length;
  }

  /** Resolves with the first message that satisfies `predicate`; rejects if the child dies first. */
  async waitFor(
    predicate: (message: ChildMessage) => boolean,
    boundMs = 30_000,
  ): Promise<ChildMessage> {
    const deadline = Date.now() + boundMs;
    for (;;) {
      const found = this.messages.find(predicate);
      if (found) return found;
      const fatal = this.messages.find((message) => message.type === 'fatal');
      if (fatal || this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(`the child ended: ${JSON.stringify(fatal)}\n${this.stderr}`);
      }
      if (Date.now() > deadline)
        throw new Error(`the child did not report in time:\n${this.stderr}`);
      await new Promise<void>((wake) => {
        const timer = setTimeout(wake, 50);
        this.waiters.push(() => {
          clearTimeout(timer);
          wake();
        });
      });
    }
  }

  /** Lets the child start sending. */
  go(): void {
    this.child.stdin!.write('go\n');
  }

  /** SIGKILL: the child dies between any two instructions. */
  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exitPromise;
  }
}
