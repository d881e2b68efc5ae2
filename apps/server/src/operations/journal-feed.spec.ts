import { encodeCommandBody } from '@once/engine/internal';
import { EntryKind } from '@once/journal';
import { JournalStore } from '@once/journal/internal';
import { ZERO_CHECKSUM, ZERO_CLIENT_ID } from '@once/protocol/internal';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JournalFeed } from './journal-feed';

function command(data: unknown) {
  return {
    kind: EntryKind.Command,
    client: ZERO_CLIENT_ID,
    session: 0,
    request: 0,
    userId: 0,
    requestChecksum: ZERO_CHECKSUM,
    body: encodeCommandBody({ pattern: 'users.create', data }),
  };
}

describe('JournalFeed on a real journal', () => {
  let dir: string;
  let journal: JournalStore;
  let feed: JournalFeed;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'once-feed-'));
    journal = await JournalStore.open(dir);
    feed = new JournalFeed(
      () => journal,
      () => ({
        kind: 'declared',
        sensitive: (pattern) => (pattern === 'users.create' ? ['password'] : undefined),
      }),
    );
    for (let i = 1; i <= 5; i++) {
      await journal.append(command({ username: `u${i}`, password: `secret-${i}` }));
    }
  });

  afterEach(async () => {
    await journal.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the last entries when no op is given, decoded, with credentials redacted', async () => {
    const page = await feed.page({ limit: 2, waitMs: 0 });
    expect(page).toMatchObject({ firstOp: 1, durableOp: 5 });
    expect(page.entries.map((entry) => entry.op)).toEqual([4, 5]);
    expect(page.entries[1]).toMatchObject({
      kind: 'COMMAND',
      pattern: 'users.create',
      body: { username: 'u5', password: '[redacted]' },
    });
    expect(JSON.stringify(page)).not.toContain('secret-');
  });

  it('serves the entries after an op, at most limit of them', async () => {
    const page = await feed.page({ after: 1, limit: 3, waitMs: 0 });
    expect(page.entries.map((entry) => entry.op)).toEqual([2, 3, 4]);
    expect((await feed.page({ after: 5, limit: 3, waitMs: 0 })).entries).toEqual([]);
  });

  it('waits for the next durable entry when nothing is after the op yet', async () => {
    const waiting = feed.page({ after: 5, limit: 10, waitMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await journal.append(command({ username: 'late' }));
    const page = await waiting;
    expect(page.entries.map((entry) => [entry.op, entry.body])).toEqual([
      [6, { username: 'late' }],
    ]);
  });

  it('withholds every COMMAND body when it is given no declarations', async () => {
    const page = await new JournalFeed(() => journal).page({ limit: 1, waitMs: 0 });
    expect(page.entries[0]).toMatchObject({ pattern: 'users.create', body: '[withheld]' });
  });

  it('cuts a page whose bodies pass 4 MiB after the entry that passes it, never before the first', async () => {
    const big = 'x'.repeat(1_500_000);
    for (let i = 0; i < 3; i++) await journal.append(command({ username: `big${i}`, note: big }));
    const page = await feed.page({ after: 5, limit: 10, waitMs: 0 });
    expect(page.entries.map((entry) => entry.op)).toEqual([6, 7]);
    const huge = 'y'.repeat(5 * 1024 * 1024);
    await journal.append(command({ username: 'huge', note: huge }));
    expect((await feed.page({ after: 8, limit: 10, waitMs: 0 })).entries).toHaveLength(1);
  });

  it('stops waiting, with nothing, when the client leaves', async () => {
    const left = new AbortController();
    const waiting = feed.page({ after: 5, limit: 10, waitMs: 30_000 }, left.signal);
    left.abort();
    expect((await waiting).entries).toEqual([]);
  });
});
