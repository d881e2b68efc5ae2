import { type ServiceProcess, eventually } from '@once/testing';
import { commandOk, queryResult } from '../support/sessions';
import {
  AUDIT,
  DeploymentDirectory,
  LEDGER_V1,
  aliceSession,
  deploy,
} from './support/module-services';

/**
 * Adding a module to a service whose journal keeps only what its newest
 * snapshot does not cover: the new module's state cannot be rebuilt by a
 * replay from op 1 (those ops are gone), so it starts empty at the
 * snapshot's op while every other state comes back from the snapshot.
 */

const RETENTION = { ONCE_SNAPSHOT_EVERY_OPS: '10', ONCE_JOURNAL_RETAIN: '1' };
const DEPOSITS = 60;

/** The op of the last `snapshot at op N written` line of `logs`. */
function lastSnapshotWritten(logs: string): number {
  const ops = [...logs.matchAll(/snapshot at op (\d+) written/g)].map((match) => Number(match[1]));
  if (ops.length === 0) throw new Error(`no snapshot was written:\n${logs}`);
  return ops[ops.length - 1];
}

describe('given a service of the ledger module retaining 1 snapshot of history, one snapshot every 10 ops', () => {
  const directory = new DeploymentDirectory();
  let service: ServiceProcess;
  beforeAll(async () => {
    await directory.create();
    service = await deploy([LEDGER_V1], directory.dataDir, RETENTION);
  });
  afterAll(async () => {
    await service?.cleanup();
    await directory.remove();
  });

  it('when 60 deposits commit, it stops gracefully and starts again with an added audit module, then it boots from the snapshot, the balance is intact, audit starts empty and its commands work', async () => {
    // Given 60 acknowledged deposits, and a journal compacted behind its snapshots
    const account = 'savings';
    const { raw, session } = await aliceSession(service);
    await commandOk(raw, session, 1, 'ledger.open', { account });
    for (let request = 2; request <= DEPOSITS + 1; request++) {
      await commandOk(raw, session, request, 'ledger.deposit', { account, amount: 1 });
    }
    raw.destroy();
    await eventually(
      () => /journal compacted: \d+ entries deleted .* it starts at op [1-9]\d*/.test(service.logs),
      'a background compaction',
    );

    // When it stops gracefully
    const mark = service.logs.length;
    expect(await service.stop()).toBe(0);
    const stopSnapshot = lastSnapshotWritten(service.logs.slice(mark));

    // And starts again, on the same data directory, with [ledger, audit]
    service = await deploy([LEDGER_V1, AUDIT], directory.dataDir, RETENTION);

    // Then it restored the snapshot of its stop, on a compacted journal, without a replay from op 1
    expect(service.logs).toMatch(/opened at op \d+ \(journal from op \d+: earlier ops compacted\)/);
    expect(service.logs).toMatch(new RegExp(`snapshot restored at op ${stopSnapshot}\\b`));
    expect(service.logs).not.toMatch(/replaying the journal from op 1/);

    // And the ledger's balance is intact, the audit state is empty, and audit commands work
    const again = await aliceSession(service, session.client);
    try {
      expect(await queryResult(again.raw, again.session, 'ledger.balance', { account })).toEqual({
        balance: DEPOSITS,
      });
      expect(await queryResult(again.raw, again.session, 'audit.list', {})).toEqual({
        entries: [],
      });
      const recorded = await commandOk(again.raw, again.session, DEPOSITS + 2, 'audit.record', {
        note: 'audit module added',
      });
      expect(await queryResult(again.raw, again.session, 'audit.list', {})).toEqual({
        entries: [{ op: recorded.header.op, userId: 1, note: 'audit module added' }],
      });
      await commandOk(again.raw, again.session, DEPOSITS + 3, 'ledger.deposit', {
        account,
        amount: 1,
      });
      expect(await queryResult(again.raw, again.session, 'ledger.balance', { account })).toEqual({
        balance: DEPOSITS + 1,
      });
    } finally {
      again.raw.destroy();
    }
  }, 120_000);
});
