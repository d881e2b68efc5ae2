import { type JournalEntry, type JournalStore } from '@once/journal';
import { type Command, InvalidArgumentError } from 'commander';
import { CliError } from '../cli-error';
import { withDataDir } from '../data-dir-option';
import { entryLine, entryView } from '../entry-view';
import { type Output } from '../output';
import { withStoppedJournal } from '../stopped-data-dir';

interface DataDirOptions {
  readonly dataDir: string;
}

/**
 * `once journal show|tail`: decoded journal entries of a stopped data
 * directory, credentials redacted (see `entryView`). No replay: the journal
 * is read as it is, each entry's checksum verified.
 */
export function registerJournal(program: Command, outputOf: (command: Command) => Output): void {
  const journal = program.command('journal').description('entries of a stopped data directory');

  withDataDir(journal.command('show'))
    .description('one entry, decoded')
    .argument('<op>', 'the entry op', positive)
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
      const view = entryView(entry);
      out.result(view, () => [entryLine(view)]);
    });

  withDataDir(journal.command('tail'))
    .description('the last entries, decoded')
    .option('-n, --entries <count>', 'how many', positive, 20)
    .option(
      '-f, --follow',
      'not available: a running node holds the directory, and polling it would race its restart',
    )
    .action(
      async (options: DataDirOptions & { entries: number; follow?: boolean }, command: Command) => {
        const out = outputOf(command);
        if (options.follow) {
          throw new CliError(
            'FOLLOW_UNAVAILABLE',
            '--follow is not available: the CLI reads stopped directories only (a running node holds ' +
              "LevelDB's lock), and reopening one in a loop could take the lock just as the node restarts. " +
              'Watch a running node with `once status` (or its metrics) instead.',
            2,
          );
        }
        const { lastOp, entries } = await withStoppedJournal(options.dataDir, async (store) => ({
          lastOp: store.lastOp,
          entries: await readRange(
            store,
            Math.max(1, store.lastOp - options.entries + 1),
            store.lastOp,
          ),
        }));
        const views = entries.map(entryView);
        out.result({ lastOp, entries: views }, () =>
          views.length === 0 ? ['the journal is empty'] : views.map(entryLine),
        );
      },
    );
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
