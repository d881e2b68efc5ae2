import { type ClientEntry } from '@once/client-table/internal';
import { type Command, InvalidArgumentError } from 'commander';
import { CliError } from '../cli-error';
import { withApp, withDataDir } from '../data-dir-option';
import { type Output } from '../output';
import { type ReplayCommandOptions, replayForCommand } from '../replay-command';
import {
  type SessionView,
  requestAnswer,
  requestAnswerLines,
  sessionLines,
  sessionView,
} from '../session-view';

/**
 * `once sessions list|show`: the client table of a stopped data directory,
 * rebuilt by replaying its journal through the service's own modules (only
 * they produce the cached replies of the commands a snapshot does not hold).
 */
export function registerSessions(program: Command, outputOf: (command: Command) => Output): void {
  const sessions = program
    .command('sessions')
    .description('the sessions of a stopped data directory (replays its journal)');

  withApp(withDataDir(sessions.command('list')))
    .description('every session: client, user, epoch, watermark, latest commit, cached replies')
    .action(async (options: ReplayCommandOptions, command: Command) => {
      const out = outputOf(command);
      const replayed = await replayForCommand(out, options);
      try {
        const views = [...replayed.engine.table.entries()]
          .map(sessionView)
          .sort((a, b) => b.latestCommitOp - a.latestCommitOp);
        const result = { commitOp: replayed.engine.commitOp, sessions: views };
        out.result(result, () => sessionTable(result.commitOp, views));
      } finally {
        await replayed.close();
      }
    });

  withApp(withDataDir(sessions.command('show')))
    .description('one session; with --request N, whether request N was applied, and its reply')
    .argument('<client>', 'client id (32 hex digits, or a unique prefix of 6 or more)')
    .option('-r, --request <n>', 'the request number to answer for', requestNumber)
    .action(
      async (
        client: string,
        options: ReplayCommandOptions & { request?: number },
        command: Command,
      ) => {
        const out = outputOf(command);
        const replayed = await replayForCommand(out, options);
        try {
          const entry = findSession([...replayed.engine.table.entries()], client);
          if (options.request === undefined) {
            const view = sessionView(entry);
            out.result(view, () => sessionLines(view));
          } else {
            const answer = requestAnswer(entry, options.request);
            out.result(answer, () => requestAnswerLines(answer));
          }
        } finally {
          await replayed.close();
        }
      },
    );
}

function requestNumber(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError('a request number is an integer >= 1');
  }
  return n;
}

/** The session of `client`: its full id, or a prefix only it has. */
export function findSession(entries: readonly ClientEntry[], client: string): ClientEntry {
  const wanted = client.toLowerCase();
  const exact = entries.find((entry) => entry.client === wanted);
  if (exact) return exact;
  const matches = wanted.length >= 6 ? entries.filter((e) => e.client.startsWith(wanted)) : [];
  if (matches.length === 1) return matches[0];
  if (matches.length > 1) {
    throw new CliError('AMBIGUOUS_CLIENT', `${client} is the prefix of ${matches.length} sessions`);
  }
  throw new CliError(
    'NO_SESSION',
    `no session of client ${client}: it never registered, logged out, expired or was evicted, ` +
      'and the node no longer knows its requests (the journal still holds them: `once journal tail`)',
  );
}

function sessionTable(commitOp: number, views: readonly SessionView[]): string[] {
  const rows = views.map((view) => [
    view.client,
    String(view.userId),
    String(view.epoch),
    String(view.watermark),
    String(view.latestCommitOp),
    view.replies.length === 0
      ? '-'
      : `${view.replies[0].request}..${view.replies[view.replies.length - 1].request}`,
  ]);
  const header = ['CLIENT', 'USER', 'EPOCH', 'WATERMARK', 'LATEST OP', 'CACHED'];
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => row[i].length)),
  );
  const line = (cells: string[]): string =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [
    `${views.length} session${views.length === 1 ? '' : 's'} at op ${commitOp}`,
    ...(views.length === 0 ? [] : [line(header), ...rows.map(line)]),
  ];
}
