import {
  type DomainApp,
  type TestSession,
  startDomainApp,
} from '../__fixtures__/domain-app.fixture';
import { LedgerController } from './ledger.controller';

describe('ledger module (through the apply path)', () => {
  let app: DomainApp;
  let alice: TestSession;

  beforeAll(async () => {
    app = await startDomainApp();
    alice = await app.session(1);
  });
  afterAll(() => app.close());

  it('opens accounts once', async () => {
    expect(await alice.command('ledger.open', { account: 'a' })).toEqual({
      ok: true,
      result: { account: 'a', balance: 0 },
    });
    expect(await alice.command('ledger.open', { account: 'a' })).toMatchObject({
      ok: false,
      error: { code: 'ACCOUNT_EXISTS' },
    });
    await alice.command('ledger.open', { account: 'b' });
  });

  it('deposits into existing accounts only, positive integers only', async () => {
    expect(await alice.command('ledger.deposit', { account: 'a', amount: 10 })).toEqual({
      ok: true,
      result: { balance: 10 },
    });
    expect(await alice.command('ledger.deposit', { account: 'zz', amount: 1 })).toMatchObject({
      error: { code: 'ACCOUNT_NOT_FOUND' },
    });
    for (const amount of [0, -1, 1.5, '3', Number.MAX_SAFE_INTEGER + 1]) {
      expect(await alice.command('ledger.deposit', { account: 'a', amount })).toMatchObject({
        error: { code: 'INVALID_AMOUNT' },
      });
    }
  });

  it('transfers with funds, refuses without, and leaves state untouched on refusal', async () => {
    expect(
      await alice.command('ledger.transfer', { from: 'a', to: 'b', amount: 4, reference: 't1' }),
    ).toEqual({
      ok: true,
      result: { from: 6, to: 4 },
    });
    expect(await alice.command('ledger.transfer', { from: 'a', to: 'b', amount: 7 })).toMatchObject(
      {
        error: { code: 'INSUFFICIENT_FUNDS' },
      },
    );
    expect(
      await alice.command('ledger.transfer', { from: 'a', to: 'b', amount: 1, reference: 't1' }),
    ).toMatchObject({
      error: { code: 'DUPLICATE_REFERENCE' },
    });
    expect(
      await alice.command('ledger.transfer', { from: 'a', to: 'nope', amount: 1 }),
    ).toMatchObject({
      error: { code: 'ACCOUNT_NOT_FOUND' },
    });
    const ledger = app.module.get(LedgerController);
    expect(ledger.balance({ account: 'a' })).toEqual({ balance: 6 });
    expect(ledger.balance({ account: 'b' })).toEqual({ balance: 4 });
  });

  it('keeps balances across a restart (replay)', async () => {
    app = await app.restart();
    const ledger = app.module.get(LedgerController);
    expect(ledger.balance({ account: 'a' })).toEqual({ balance: 6 });
    expect(ledger.balance({ account: 'b' })).toEqual({ balance: 4 });
  });
});
