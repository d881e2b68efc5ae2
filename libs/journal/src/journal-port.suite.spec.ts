import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeJournalPort, type WriteHold } from '../../../test/support/journal-port-suite';
import { JournalStore } from './journal-store';

/**
 * The journal port's conformance suite against the LevelDB store, in a temp
 * directory. Its writes are held and broken through the store's own
 * `beforeWrite` hook, which runs where the LevelDB batch write would.
 */
describeJournalPort('JournalStore (LevelDB)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'once-port-'));
  let broken = false;
  let hold: { reached: () => void; released: Promise<void> } | undefined;
  return {
    open: () =>
      JournalStore.open(dir, {
        beforeWrite: async () => {
          if (broken) throw new Error('write refused by the test');
          const current = hold;
          if (current === undefined) return;
          current.reached();
          await current.released;
        },
      }),
    breakWrites: () => {
      broken = true;
      return Promise.resolve();
    },
    holdWrites: (): Promise<WriteHold> => {
      let reach!: () => void;
      let release!: () => void;
      const reached = new Promise<void>((resolve) => (reach = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      hold = { reached: reach, released };
      return Promise.resolve({
        reached: () => reached,
        release: () => {
          hold = undefined;
          release();
          return Promise.resolve();
        },
      });
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});
