import { randomClientId } from '@once/protocol';
import { RawClient, ServiceProcess, eventually, outcomeOf, registrationOf } from '@once/testing';
import { runServiceToExit } from '../support/wire';

/**
 * Retention on the reference service: with ONCE_JOURNAL_RETAIN the journal
 * drops what the older snapshots stand for, a node killed under load boots
 * from a snapshot that covers the dropped ops (and says so), and `--verify`
 * replays from there.
 */

const PASSWORD = 'retention-pw';
const DEPOSITS = 300;

describe('given a service retaining 2 snapshots of history, one every 40 ops', () => {
  let service: ServiceProcess;
  beforeAll(async () => {
    service = await ServiceProcess.start({
      env: {
        ONCE_ADMIN_PASSWORD: PASSWORD,
        ONCE_JOURNAL_RETAIN: '2',
        ONCE_SNAPSHOT_EVERY_OPS: '40',
      },
    });
  });
  afterAll(() => service.cleanup());

  it('when deposits run and the node is killed, then it restarts from a covering snapshot with every acknowledged deposit, and --verify passes from there', async () => {
    const client = randomClientId();
    const raw = await RawClient.connect(service.port);
    const { epoch } = registrationOf(await raw.register(client, 'admin', PASSWORD));
    expect(
      outcomeOf(await raw.command(client, epoch, 1, 'ledger.open', { account: 'kept' })),
    ).toMatchObject({ ok: true });
    for (let request = 2; request <= DEPOSITS + 1; request++) {
      const deposit = { account: 'kept', amount: 1 };
      expect(
        outcomeOf(await raw.command(client, epoch, request, 'ledger.deposit', deposit)),
      ).toMatchObject({ ok: true });
    }
    raw.destroy();
    await eventually(
      () =>
        /journal compacted: \d+ entries deleted .* it starts at op ([1-9]\d+)/.test(service.logs),
      'a background compaction',
    );

    await service.crash();
    const mark = service.logs.length;
    await service.restart();
    const logs = service.logs.slice(mark);
    const opened = /opened at op (\d+) \(journal from op (\d+): earlier ops compacted\)/.exec(logs);
    expect(opened).not.toBeNull();
    const firstOp = Number(opened![2]);
    expect(firstOp).toBeGreaterThan(1);
    const restored = /snapshot restored at op (\d+) \(the journal starts at op (\d+)/.exec(logs);
    expect(restored).not.toBeNull();
    expect(Number(restored![2])).toBe(firstOp);
    expect(Number(restored![1])).toBeGreaterThanOrEqual(firstOp - 1);

    const again = await RawClient.connect(service.port);
    const resumed = registrationOf(await again.register(client, 'admin', PASSWORD));
    expect(
      outcomeOf(await again.query(client, resumed.epoch, 'ledger.balance', { account: 'kept' })),
    ).toEqual({ ok: true, result: { balance: DEPOSITS } });
    again.destroy();
    expect(await service.stop()).toBe(0);

    const verified = await runServiceToExit({ ONCE_DATA_DIR: service.dataDir }, ['--verify']);
    expect(verified.code).toBe(0);
    // The ledger's accounts are keyed records, on disk as of the newest snapshot only: an
    // older snapshot cannot be restored, so a compacted journal verifies from the newest
    // one (the graceful stop's, at the journal's end), and there is nothing left to replay.
    expect(verified.output).toMatch(
      /verify: 0 journal entries replayed from op \d+ \(after the snapshot at op \d+: the journal was compacted, op 1 is gone\), all intact; no snapshot to compare with/,
    );
  });
});
