import { randomClientId } from '@once/protocol';
import { type ServiceProcess, outcomeOf } from '@once/testing';
import { commandOk, queryResult } from '../support/sessions';
import {
  AUDIT,
  DeploymentDirectory,
  LEDGER_V1,
  aliceSession,
  deploy,
  expectRefusedWithExitCode1,
  linesNaming,
  startExpectingRefusal,
} from './support/module-services';

/**
 * Removing a module whose state holds data: a deployment that merely leaves
 * it out is refused (its data would be dropped by mistake), one that retires
 * the state on purpose boots, and once a snapshot has dropped the state no
 * later start needs to retire it again.
 */
describe('given a service of [ledger, audit] with data in both, stopped gracefully', () => {
  const directory = new DeploymentDirectory();
  const account = 'checking';
  /** Alice's client: each deployment resumes its session, numbering requests on. */
  const client = randomClientId();
  let service: ServiceProcess | undefined;
  beforeAll(async () => {
    await directory.create();
    service = await deploy([LEDGER_V1, AUDIT], directory.dataDir);
    const { raw, session } = await aliceSession(service, client);
    await commandOk(raw, session, 1, 'ledger.open', { account });
    await commandOk(raw, session, 2, 'ledger.deposit', { account, amount: 25 });
    await commandOk(raw, session, 3, 'audit.record', { note: 'opened checking' });
    await commandOk(raw, session, 4, 'audit.record', { note: 'first deposit' });
    raw.destroy();
    expect(await service.stop()).toBe(0);
    service = undefined;
  }, 120_000);
  afterAll(async () => {
    await service?.cleanup();
    await directory.remove();
  });

  it('when it starts with [ledger] only, then it exits 1 naming STATE_NOT_PROVIDED and the state "audit", and says how to retire it', async () => {
    const run = await startExpectingRefusal([LEDGER_V1], directory.dataDir);

    await expectRefusedWithExitCode1(run);
    const refusal = linesNaming(run.output, 'STATE_NOT_PROVIDED');
    expect(refusal).toMatch(/"audit"/);
    expect(refusal).toMatch(/ONCE_RETIRED_STATES=audit/);
    expect(refusal).toMatch(/\bretired\b.*\bstates\b/);
  }, 120_000);

  it('when it starts with [ledger] and ONCE_RETIRED_STATES=audit, then it boots with the ledger intact', async () => {
    service = await deploy([LEDGER_V1], directory.dataDir, { ONCE_RETIRED_STATES: 'audit' });

    const { raw, session } = await aliceSession(service, client);
    try {
      expect(await queryResult(raw, session, 'ledger.balance', { account })).toEqual({
        balance: 25,
      });
      const deposited = await commandOk(raw, session, 5, 'ledger.deposit', { account, amount: 5 });
      expect(outcomeOf(deposited)).toEqual({ ok: true, result: { balance: 30 } });
    } finally {
      raw.destroy();
    }
    expect(await service.stop()).toBe(0);
    service = undefined;
  }, 120_000);

  it('when, after that retired boot and its stop, it starts with [ledger] and nothing retired, then it boots: the state is gone for good', async () => {
    service = await deploy([LEDGER_V1], directory.dataDir);

    const { raw, session } = await aliceSession(service, client);
    try {
      expect(await queryResult(raw, session, 'ledger.balance', { account })).toEqual({
        balance: 30,
      });
    } finally {
      raw.destroy();
    }
  }, 120_000);
});
