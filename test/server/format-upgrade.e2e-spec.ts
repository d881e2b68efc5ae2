import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SUBLEVEL_NAMES } from '@once/journal/internal';
import { type ClientId, randomClientId } from '@once/protocol';
import { checksum } from '@once/protocol/internal';
import { RawClient, ServiceProcess, eventually, outcomeOf, registrationOf } from '@once/testing';
import { ClassicLevel } from 'classic-level';
import { runServiceToExit } from '../support/wire';

/**
 * The data directory format 2 → 3 upgrade on the reference service. The
 * fixture (libs/journal/src/__fixtures__/format-2, written by
 * scripts/make-format-2-fixture.js with the reference service of the last
 * build of format 2) holds a ledger whose snapshot at op 19 is the
 * whole-object picture `{accounts, references}` that build wrote (alice,
 * bob and carol, the transfer `rent-march`), and journal entries 20..27
 * after it (dave, more deposits, the transfer `refund-april`). This build
 * keeps the ledger as keyed records: it must upgrade the directory, import
 * the picture into records, replay the entries after it, write the records
 * with its first snapshot, boot from that snapshot after a SIGKILL, and
 * verify from op 1.
 */

const FIXTURE = join(__dirname, '../../libs/journal/src/__fixtures__/format-2');
/** The admin password the fixture's directory was created with. */
const PASSWORD = 'format-2-fixture';
/** What the build of format 2 acknowledged. */
const ACKNOWLEDGED = { alice: 90, bob: 60, carol: 10, dave: 5 };
/** Deposits to carol made after the upgrade, to be found again after the SIGKILL. */
const DEPOSITS_AFTER_UPGRADE = 8;

/** A registered admin session on `service`. */
async function admin(service: ServiceProcess): Promise<{
  raw: RawClient;
  client: ClientId;
  epoch: number;
}> {
  const client = randomClientId();
  const raw = await RawClient.connect(service.port);
  const { epoch } = registrationOf(await raw.register(client, 'admin', PASSWORD));
  return { raw, client, epoch };
}

/** Every account's balance as the service reads it now. */
async function balances(service: ServiceProcess): Promise<Record<string, unknown>> {
  const { raw, client, epoch } = await admin(service);
  try {
    const read: Record<string, unknown> = {};
    for (const account of Object.keys(ACKNOWLEDGED)) {
      read[account] = outcomeOf(await raw.query(client, epoch, 'ledger.balance', { account }));
    }
    return read;
  } finally {
    raw.destroy();
  }
}

/** A copy of the fixture in a new directory under `parent`; its path. */
async function copyFixture(parent: string): Promise<string> {
  const dataDir = join(await fs.mkdtemp(join(parent, 'copy-')), 'data');
  await fs.cp(FIXTURE, dataDir, { recursive: true });
  // Git keeps no file mode; the node refuses a secret others can read.
  await fs.chmod(join(dataDir, 'node-secret'), 0o600);
  return dataDir;
}

/**
 * Rewrites the stored snapshot at op 19 with `edit` applied to its bytes (of
 * the same length), its checksum made right again: a snapshot that reads
 * well but does not hold what the journal up to it makes.
 */
async function alterSnapshot(dataDir: string, edit: (payload: string) => string): Promise<void> {
  const db = new ClassicLevel<Buffer, Buffer>(join(dataDir, 'leveldb'), {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
  });
  await db.open();
  try {
    const snapshots = db.sublevel<Buffer, Buffer>(SUBLEVEL_NAMES.snapshot, {
      keyEncoding: 'buffer',
      valueEncoding: 'buffer',
    });
    const key = Buffer.alloc(8);
    key.writeBigUInt64BE(19n);
    const stored = (await snapshots.get(key))!;
    // [checksum 16][op u64 8][payload], the checksum over bytes 16..end.
    const edited = Buffer.from(edit(stored.toString('latin1')), 'latin1');
    expect(edited.length).toBe(stored.length);
    expect(edited.equals(stored)).toBe(false);
    checksum(edited.subarray(16)).copy(edited, 0);
    await snapshots.put(key, edited);
  } finally {
    await db.close();
  }
}

/** Every raw row of the stopped `dataDir`'s LevelDB, in latin1, in LevelDB's order. */
async function rawRows(dataDir: string): Promise<Array<[string, string]>> {
  const db = new ClassicLevel<Buffer, Buffer>(join(dataDir, 'leveldb'), {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
  });
  await db.open();
  try {
    const rows = await db.iterator().all();
    return rows.map(([key, value]) => [key.toString('latin1'), value.toString('latin1')]);
  } finally {
    await db.close();
  }
}

const balancesOf = (expected: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(expected).map(([account, balance]) => [
      account,
      { ok: true, result: { balance } },
    ]),
  );

describe('given a copy of a format-2 data directory that no build of format 3 served yet', () => {
  let workDir: string;
  beforeAll(async () => {
    workDir = await fs.mkdtemp(join(tmpdir(), 'once-format-verify-'));
  });
  afterAll(() => fs.rm(workDir, { recursive: true, force: true }));

  it('when --verify runs, then it reads it as it is, writes nothing (the directory stays format 2), and the replay from op 1 equals the whole-object snapshot the previous build took', async () => {
    const dataDir = await copyFixture(workDir);
    const before = await rawRows(dataDir);

    const verified = await runServiceToExit({ ONCE_DATA_DIR: dataDir }, ['--verify']);

    expect(verified.output).not.toContain('upgraded to format');
    expect(await rawRows(dataDir)).toEqual(before);
    expect(verified.output).toContain(
      'verify: 27 journal entries replayed from op 1, all intact; the replay at op 19 equals the snapshot taken there',
    );
    expect(verified.code).toBe(0);
  }, 120_000);

  it('when its snapshot holds another balance than its journal makes and --verify runs, then the replay differs from it', async () => {
    const dataDir = await copyFixture(workDir);
    await alterSnapshot(dataDir, (payload) => payload.replace('["alice",70]', '["alice",71]'));

    const verified = await runServiceToExit({ ONCE_DATA_DIR: dataDir }, ['--verify']);

    expect(verified.output).toContain('the replay at op 19 DIFFERS FROM the snapshot taken there');
    expect(verified.code).toBe(1);
  }, 120_000);
});

describe('given a copy of a format-2 data directory written by the previous build', () => {
  let workDir: string;
  let dataDir: string;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    workDir = await fs.mkdtemp(join(tmpdir(), 'once-format-upgrade-'));
    dataDir = await copyFixture(workDir);
  });
  afterAll(async () => {
    await service?.cleanup();
    await fs.rm(workDir, { recursive: true, force: true });
  });

  it('when the service boots on it, then it upgrades it to format 3 and reads every balance and transfer reference the previous build acknowledged', async () => {
    service = await ServiceProcess.start({
      dataDir,
      env: { ONCE_ADMIN_PASSWORD: PASSWORD, ONCE_SNAPSHOT_EVERY_OPS: '4' },
    });

    expect(service.logs).toContain(`data directory ${dataDir} upgraded to format 3`);
    expect(service.logs).toMatch(/snapshot restored at op 19\b/);
    expect(service.logs).toMatch(/replay applied 8 entries/);
    expect(await balances(service)).toEqual(balancesOf(ACKNOWLEDGED));
    const { raw, client, epoch } = await admin(service);
    try {
      // One from the snapshot's picture, one from the journal after it.
      for (const [request, reference] of [
        [1, 'rent-march'],
        [2, 'refund-april'],
      ] as const) {
        const transfer = { from: 'alice', to: 'bob', amount: 1, reference };
        expect(
          outcomeOf(await raw.command(client, epoch, request, 'ledger.transfer', transfer)),
        ).toMatchObject({ ok: false, error: { code: 'DUPLICATE_REFERENCE' } });
      }
    } finally {
      raw.destroy();
    }
  }, 120_000);

  it('when deposits follow, a snapshot is written and the service is killed, then it boots from that snapshot and reads every balance', async () => {
    const { raw, client, epoch } = await admin(service!);
    const mark = service!.logs.length;
    try {
      for (let request = 1; request <= DEPOSITS_AFTER_UPGRADE; request++) {
        const deposit = { account: 'carol', amount: 1 };
        expect(
          outcomeOf(await raw.command(client, epoch, request, 'ledger.deposit', deposit)),
        ).toMatchObject({ ok: true });
      }
    } finally {
      raw.destroy();
    }
    // Every 4 ops: one comes with the deposits; it writes the imported records.
    await eventually(
      () => /snapshot at op \d+ written/.test(service!.logs.slice(mark)),
      'a snapshot after the upgrade',
    );

    await service!.crash();
    const restart = service!.logs.length;
    await service!.restart();

    const logs = service!.logs.slice(restart);
    expect(logs).not.toContain('upgraded to format');
    const restored = /snapshot restored at op (\d+)/.exec(logs);
    expect(restored).not.toBeNull();
    expect(Number(restored![1])).toBeGreaterThan(27);
    expect(logs).not.toMatch(/does not restore|replaying the journal from op 1/);
    expect(await balances(service!)).toEqual(
      balancesOf({ ...ACKNOWLEDGED, carol: ACKNOWLEDGED.carol + DEPOSITS_AFTER_UPGRADE }),
    );
  }, 120_000);

  it('when the service is stopped and --verify runs, then the replay from op 1 equals the newest snapshot', async () => {
    expect(await service!.stop()).toBe(0);

    const verified = await runServiceToExit({ ONCE_DATA_DIR: dataDir }, ['--verify']);

    expect(verified.output).toMatch(
      /verify: \d+ journal entries replayed from op 1, all intact; the replay at op \d+ equals the snapshot taken there/,
    );
    expect(verified.code).toBe(0);
  }, 120_000);
});

describe('given a copy of a format-1 data directory', () => {
  const FORMAT_1_FIXTURE = join(__dirname, '../../libs/journal/src/__fixtures__/format-1');
  let workDir: string;
  beforeAll(async () => {
    workDir = await fs.mkdtemp(join(tmpdir(), 'once-format-1-verify-'));
  });
  afterAll(() => fs.rm(workDir, { recursive: true, force: true }));

  it('when --verify runs, then it refuses with FORMAT_UPGRADE_NEEDED, saying what to do, and writes nothing', async () => {
    const dataDir = join(await fs.mkdtemp(join(workDir, 'copy-')), 'data');
    await fs.cp(FORMAT_1_FIXTURE, dataDir, { recursive: true });
    await fs.chmod(join(dataDir, 'node-secret'), 0o600);
    const before = await rawRows(dataDir);

    const verified = await runServiceToExit({ ONCE_DATA_DIR: dataDir }, ['--verify']);

    expect(verified.code).toBe(1);
    expect(verified.output).toContain(
      `data directory ${dataDir} has format version 1, which this build upgrades to 3 in place when the node starts on it`,
    );
    expect(verified.output).not.toContain('upgraded to format');
    expect(await rawRows(dataDir)).toEqual(before);
  }, 120_000);
});
