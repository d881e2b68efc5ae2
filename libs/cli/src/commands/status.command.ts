import { settingDefault } from '@once/settings';
import { type Command, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { scrapeSessions } from '../metrics-scrape';
import { operationsHeaders, withOperationsToken } from '../operations-token';
import { type Output } from '../output';
import { type PingAnswer, ping } from '../ping';

interface StatusOptions {
  readonly host: string;
  readonly port: string;
  readonly tlsCa?: string;
  readonly metricsUrl?: string;
  readonly operationsTokenFile?: string;
}

/** `once status --json` (also the fields of the text). */
export interface StatusView extends PingAnswer {
  readonly host: string;
  readonly port: number;
  /** Sessions in the table, from `--metrics-url`; null without it. */
  readonly sessions: number | null;
}

/**
 * `once status`: asks a running node by PING (protocol version, commit op,
 * ready, and in a cluster its node id, role and leader). The session count is
 * read from the node's metrics endpoint when `--metrics-url` names it.
 */
export function registerStatus(program: Command, outputOf: (command: Command) => Output): void {
  const status = program
    .command('status')
    .description('a running node: protocol version, commit op, ready, role (by PING)')
    .addOption(
      new Option('--host <host>', 'node host').env('ONCE_HOST').default(settingDefault('host')),
    )
    .addOption(
      new Option('--port <port>', 'node port')
        .env('ONCE_PORT')
        .default(String(settingDefault('port'))),
    )
    .option('--tls-ca <file>', 'connect with TLS, trusting this PEM CA bundle')
    .option(
      '--metrics-url <url>',
      'also read the session count from the metrics listener (its base URL, or its /metrics)',
    );
  withOperationsToken(status).action(async (options: StatusOptions, command: Command) => {
    const out = outputOf(command);
    const port = Number(options.port);
    const answer = await ping({
      host: options.host,
      port,
      tlsCa: options.tlsCa ? readFileSync(options.tlsCa) : undefined,
    });
    const sessions = options.metricsUrl
      ? await scrapeSessions(
          options.metricsUrl,
          undefined,
          operationsHeaders(options.operationsTokenFile),
        )
      : null;
    const view: StatusView = { host: options.host, port, ...answer, sessions };
    out.result(view, () => statusLines(view));
  });
}

export function statusLines(view: StatusView): string[] {
  return [
    `node       ${view.host}:${view.port}${view.node === null ? '' : ` (${view.node})`}`,
    `protocol   version ${view.version}`,
    `ready      ${view.ready ? 'yes' : 'no'}`,
    `commit op  ${view.commit}`,
    `role       ${view.role}${view.leader === null ? '' : `, leader ${view.leader}`}`,
    ...(view.sessions === null ? [] : [`sessions   ${view.sessions}`]),
  ];
}
