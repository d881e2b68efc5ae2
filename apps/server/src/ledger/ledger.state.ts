import { ReplicatedState, type ModuleState } from '@once/framework';

interface LedgerSnapshot {
  accounts: Array<[string, number]>;
  references: string[];
}

/**
 * Account balances, and the references of the transfers applied so far (a
 * transfer's own idempotency key, so a doubled application could never hide).
 */
@ReplicatedState('ledger')
export class LedgerState implements ModuleState {
  readonly accounts = new Map<string, number>();
  readonly references = new Set<string>();

  toSnapshot(): LedgerSnapshot {
    return { accounts: [...this.accounts], references: [...this.references] };
  }

  fromSnapshot(snapshot: unknown): void {
    const { accounts, references } = snapshot as LedgerSnapshot;
    this.accounts.clear();
    this.references.clear();
    for (const [account, balance] of accounts) this.accounts.set(account, balance);
    for (const reference of references) this.references.add(reference);
  }
}
