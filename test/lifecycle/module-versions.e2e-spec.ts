import { type Frame } from '@once/protocol';
import { RawClient, type ServiceProcess, outcomeOf } from '@once/testing';
import { type Session, commandOk, queryResult } from '../support/sessions';
import {
  DeploymentDirectory,
  LEDGER_V1,
  LEDGER_V1_WITH_FEE,
  LEDGER_V2,
  type ModuleSpec,
  aliceSession,
  deploy,
  expectRefusedWithExitCode1,
  linesNaming,
  startExpectingRefusal,
} from './support/module-services';

/**
 * Changing what a handler replies: without a version bump the journal's
 * acknowledged replies no longer come out of a replay, and the node refuses
 * to serve rather than rebuild a different history; with a bump and a
 * `ctx.version` branch, old entries replay under the old rule and new
 * commands take the new one; and code older than the journal is refused.
 */

const ACCOUNT = 'wallet';
const DEPOSIT = { account: ACCOUNT, amount: 10 };
/** Request numbers of the history: the open, then five deposits. */
const FIRST_DEPOSIT = 2;
const LAST_DEPOSIT = 6;

/** Five deposits of 10 as acknowledged under ledger version 1. */
interface VersionOneHistory {
  readonly session: Session;
  /** The reply of the first deposit (its op is the first whose reply a fee would change). */
  readonly first: Frame;
  /** The reply of the last acknowledged request: `{balance: 50}`. */
  readonly last: Frame;
}

/** Opens the account and commits five deposits of 10 on `service`, each acknowledged. */
async function fiveDepositsOf10(service: ServiceProcess): Promise<VersionOneHistory> {
  const { raw, session } = await aliceSession(service);
  try {
    await commandOk(raw, session, 1, 'ledger.open', { account: ACCOUNT });
    const replies: Frame[] = [];
    for (let request = FIRST_DEPOSIT; request <= LAST_DEPOSIT; request++) {
      replies.push(await commandOk(raw, session, request, 'ledger.deposit', DEPOSIT));
    }
    const last = replies[replies.length - 1];
    expect(outcomeOf(last)).toEqual({ ok: true, result: { balance: 50 } });
    return { session, first: replies[0], last };
  } finally {
    raw.destroy();
  }
}

/**
 * The resend of the last acknowledged deposit, as a client retries it: same
 * client, same session epoch (resumed by its token, on a new connection),
 * same request number, same body. Binds `raw` to the session.
 */
function retryLastDeposit(raw: RawClient, { session }: VersionOneHistory): Promise<Frame> {
  return raw.command(
    session.client,
    session.epoch,
    LAST_DEPOSIT,
    'ledger.deposit',
    DEPOSIT,
    session.resumeToken,
  );
}

/**
 * What the five deposits left, as a client finds it: the retry of the last
 * one answered with its first reply's bytes, and the balance 50.
 */
async function expectFirstFiveDeposits(raw: RawClient, history: VersionOneHistory): Promise<void> {
  expect((await retryLastDeposit(raw, history)).raw).toEqual(history.last.raw);
  expect(await queryResult(raw, history.session, 'ledger.balance', { account: ACCOUNT })).toEqual({
    balance: 50,
  });
}

/** `text` without its op numbers, so that the numbers left are the versions it names. */
function withoutOps(text: string): string {
  return text.replace(/\bops? \d+/g, 'op N');
}

/**
 * The given of a describe block: a data directory where ledger version 1
 * acknowledged five deposits of 10 before a SIGKILL. Its tests deploy on
 * `dataDir` and keep the service they leave running in `service`, which the
 * block's end kills before it removes the directory.
 */
class KilledVersionOneDeployment {
  service: ServiceProcess | undefined;
  private readonly directory = new DeploymentDirectory();
  private historyValue: VersionOneHistory | undefined;

  static forSuite(): KilledVersionOneDeployment {
    const deployment = new KilledVersionOneDeployment();
    beforeAll(async () => {
      await deployment.directory.create();
      const service = await deploy([LEDGER_V1], deployment.dataDir);
      deployment.service = service;
      deployment.historyValue = await fiveDepositsOf10(service);
      await service.crash();
      deployment.service = undefined;
    }, 120_000);
    afterAll(async () => {
      await deployment.service?.cleanup();
      await deployment.directory.remove();
    });
    return deployment;
  }

  get dataDir(): string {
    return this.directory.dataDir;
  }

  get history(): VersionOneHistory {
    if (!this.historyValue) throw new Error('the history is written in beforeAll');
    return this.historyValue;
  }

  /** Starts a service of `modules` on the directory (after the previous one has ended). */
  async deploy(modules: readonly ModuleSpec[]): Promise<ServiceProcess> {
    this.service = await deploy(modules, this.dataDir);
    return this.service;
  }

  /** Ends the running service: by SIGKILL, or gracefully (exit code 0 expected). */
  async end(how: 'crash' | 'stop'): Promise<void> {
    const service = this.service;
    if (!service) throw new Error('no service runs');
    if (how === 'crash') await service.crash();
    else expect(await service.stop()).toBe(0);
    this.service = undefined;
  }
}

describe('given five deposits of 10 acknowledged under ledger version 1 (last reply {balance: 50}), then SIGKILL', () => {
  const deployment = KilledVersionOneDeployment.forSuite();

  it("when it restarts with deposits that take a fee of 1 and the version not bumped, then it exits 1 naming NONDETERMINISTIC_APPLY, the first deposit's op, ledger.deposit and the module ledger, having served nothing", async () => {
    const run = await startExpectingRefusal([LEDGER_V1_WITH_FEE], deployment.dataDir);

    await expectRefusedWithExitCode1(run);
    const refusal = linesNaming(run.output, 'NONDETERMINISTIC_APPLY');
    expect(refusal).toMatch(new RegExp(`\\bop ${deployment.history.first.header.op}\\b`));
    expect(refusal).toContain('ledger.deposit');
    // The module on its own, not only as the pattern's prefix
    expect(refusal).toMatch(/\bledger\b(?!\.)/);
  }, 120_000);

  it('when the unchanged version-1 code starts again, then the refused start changed nothing: the last reply is cached byte for byte, balance 50', async () => {
    const service = await deployment.deploy([LEDGER_V1]);

    const raw = await RawClient.connect(service.port);
    try {
      await expectFirstFiveDeposits(raw, deployment.history);
    } finally {
      raw.destroy();
    }
  }, 120_000);
});

describe('given five deposits of 10 acknowledged under ledger version 1 (last reply {balance: 50}), then SIGKILL, and a version 2 whose deposits take a fee of 1', () => {
  const deployment = KilledVersionOneDeployment.forSuite();

  it('when it restarts with version 2, then the balance is 50, the retry of the last acknowledged request gets its first reply byte for byte, and a new deposit of 10 pays the fee (balance 59)', async () => {
    const service = await deployment.deploy([LEDGER_V2]);

    const raw = await RawClient.connect(service.port);
    try {
      await expectFirstFiveDeposits(raw, deployment.history);
      const { session } = deployment.history;

      const deposited = await commandOk(raw, session, LAST_DEPOSIT + 1, 'ledger.deposit', DEPOSIT);
      expect(outcomeOf(deposited)).toEqual({ ok: true, result: { balance: 59 } });
      expect(await queryResult(raw, session, 'ledger.balance', { account: ACCOUNT })).toEqual({
        balance: 59,
      });
    } finally {
      raw.destroy();
    }
  }, 120_000);

  it('when, after that version-2 deposit, it is killed and restarts with the version-1 code, then it exits 1 naming MODULE_VERSION_UNSUPPORTED, the module ledger and both versions', async () => {
    await deployment.end('crash');

    const run = await startExpectingRefusal([LEDGER_V1], deployment.dataDir);

    await expectRefusedWithExitCode1(run);
    const refusal = withoutOps(linesNaming(run.output, 'MODULE_VERSION_UNSUPPORTED'));
    expect(refusal).toMatch(/\bledger\b/);
    expect(refusal).toMatch(/\b1\b/);
    expect(refusal).toMatch(/\b2\b/);
  }, 120_000);

  it('when version 2 starts again and stops gracefully (a snapshot written at version 2), then the version-1 code is refused likewise, and version 2 had kept balance 59', async () => {
    const service = await deployment.deploy([LEDGER_V2]);
    const { raw, session } = await aliceSession(service, deployment.history.session.client);
    try {
      expect(await queryResult(raw, session, 'ledger.balance', { account: ACCOUNT })).toEqual({
        balance: 59,
      });
    } finally {
      raw.destroy();
    }
    await deployment.end('stop');

    const run = await startExpectingRefusal([LEDGER_V1], deployment.dataDir);

    await expectRefusedWithExitCode1(run);
    const refusal = withoutOps(linesNaming(run.output, 'MODULE_VERSION_UNSUPPORTED'));
    expect(refusal).toMatch(/\bledger\b/);
    expect(refusal).toMatch(/\b1\b/);
    expect(refusal).toMatch(/\b2\b/);
  }, 120_000);
});
