import { type JournalEntry, type JournalStore } from '@once/journal/internal';
import { type Command, InvalidArgumentError } from 'commander';
import { CliError } from '../cli-error';
import { withDataDir } from '../data-dir-option';
import { type BodyDisclosure, type EntryView, entryLine, entryView } from '../entry-view';
import { fetchJournalPage, followJournal, journalUrlOf } from '../journal-feed-client';
import { operationsHeaders, withOperationsToken } from '../operations-token';
import { type Output } from '../output';
import { withStoppedJournal } from '../stopped-data-dir';

interface DataDirOptions {
  readonly dataDir: string;
  readonly showBodies?: boolean;
}

const SHOW_BODIES =
  "print COMMAND bodies (credential-looking fields redacted by name); without it they read [withheld]: a stopped directory is read without the service's code, so without its commands' declarations of what is sensitive";

/** How a stopped directory's COMMAND bodies are printed (see `BodyDisclosure`). */
function disclosureOf(options: DataDirOptions): BodyDisclosure {
  return options.showBodies === true ? { kind: 'by-name' } : { kind: 'withheld' };
}

/**
 * `once journal show|tail`: decoded journal entries of a stopped data
 * directory, COMMAND bodies withheld unless `--show-bodies` (see `entryView`). No replay: the journal
 * is read as it is, each entry's checksum verified. `tail --metrics-url`
 * (and `--follow`) reads a running node instead, through its journal feed:
 * LevelDB's lock keeps its directory closed to other processes.
 */
export function registerJournal(program: Command, outputOf: (command: Command) => Output): void {
  const journal = program.command('journal').description('entries of a stopped data directory');

  withDataDir(journal.command('show'))
    .description('one entry, decoded')
    .argument('<op>', 'the entry op', positive)
    .option('--show-bodies', SHOW_BODIES)
    .action(async (op: number, options: DataDirOptions, command: Command) => {
      const out = outputOf(command);
      const [entry] = await withStoppedJournal(options.dataDir, async (store) => {
        if (op > store.lastOp) {
          throw new CliError(
            'NO_SUCH_OP',
            `op ${op} is beyond the journal's end (op ${store.lastOp})`,
          );
        }
        return readRange(store, op, op);
      });
      const view = entryView(entry, disclosureOf(options));
      out.result(view, () => [entryLine(view)]);
    });

  const tail = withDataDir(journal.command('tail'))
    .description('the last entries, decoded (of a running node too, with --metrics-url)')
    .option('-n, --entries <count>', 'how many', positive, 20)
    .option(
      '--metrics-url <url>',
      'read a running node through its metrics listener (started with ONCE_JOURNAL_FEED=on) instead of a directory',
    )
    .option(
      '-f, --follow',
      'then print each new durable entry until interrupted (needs --metrics-url)',
    )
    .option('--show-bodies', `${SHOW_BODIES} (a running node shows them as its code declares)`);
  withOperationsToken(tail).action(async (options: TailOptions, command: Command) => {
    const out = outputOf(command);
    if (options.follow) return follow(options, out);
    const { lastOp, entries } =
      options.metricsUrl === undefined
        ? await tailOfStopped(options.dataDir, options.entries, disclosureOf(options))
        : await tailOfRunning(
            options.metricsUrl,
            options.entries,
            operationsHeaders(options.operationsTokenFile),
          );
    out.result({ lastOp, entries }, () =>
      entries.length === 0 ? ['the journal is empty'] : entries.map(entryLine),
    );
  });
}

interface TailOptions extends DataDirOptions {
  readonly entries: number;
  readonly metricsUrl?: string;
  readonly follow?: boolean;
  readonly operationsTokenFile?: string;
}

async function tailOfStopped(
  dataDir: string,
  count: number,
  disclosure: BodyDisclosure,
): Promise<{ lastOp: number; entries: EntryView[] }> {
  return withStoppedJournal(dataDir, async (store) => ({
    lastOp: store.lastOp,
    entries: (await readRange(store, Math.max(1, store.lastOp - count + 1), store.lastOp)).map(
      (entry) => entryView(entry, disclosure),
    ),
  }));
}

async function tailOfRunning(
  metricsUrl: string,
  count: number,
  headers: Record<string, string>,
): Promise<{ lastOp: number; entries: readonly EntryView[] }> {
  const page = await fetchJournalPage(
    journalUrlOf(metricsUrl),
    { limit: count },
    undefined,
    headers,
  );
  return { lastOp: page.durableOp, entries: page.entries };
}

/**
 * `tail --follow`: the node's entries as they become durable, one line each
 * (with `--json`, one JSON object per line), until SIGINT or SIGTERM.
 */
async function follow(options: TailOptions, out: Output): Promise<void> {
  if (options.metricsUrl === undefined) {
    throw new CliError(
      'FOLLOW_NEEDS_METRICS_URL',
      '--follow reads a running node: give --metrics-url of its metrics listener (the node started ' +
        'with ONCE_METRICS_PORT and ONCE_JOURNAL_FEED=on); a stopped directory has nothing to follow',
      2,
    );
  }
  const base = journalUrlOf(options.metricsUrl);
  const headers = operationsHeaders(options.operationsTokenFile);
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  try {
    await followJournal(
      base,
      options.entries,
      stop.signal,
      {
        entry: (view) => out.line(view, () => entryLine(view)),
        note: (text) => out.note(text),
      },
      headers,
    );
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  }
}

/** Ops `from`..`to` of the journal, verified (a corrupt one throws JournalCorruptionError). */
async function readRange(store: JournalStore, from: number, to: number): Promise<JournalEntry[]> {
  const entries: JournalEntry[] = [];
  if (to < from) return entries;
  for await (const batch of store.readBatches(from, Math.min(1024, to - from + 1))) {
    for (const entry of batch) {
      if (entry.op > to) return entries;
      entries.push(entry);
    }
  }
  return entries;
}

function positive(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('an integer >= 1');
  return n;
}
