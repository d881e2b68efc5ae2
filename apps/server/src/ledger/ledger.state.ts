import { KeyedState, ReplicatedState } from '@once/framework';

/** The whole-object picture this state's code wrote before it kept keyed records. */
interface WholeLedgerPicture {
  accounts: Array<[string, number]>;
  references: string[];
}

/**
 * Account balances, and the references of the transfers applied so far (a
 * transfer's own idempotency key, so a doubled application could never hide).
 *
 * Keyed state: a ledger grows with its customers, so its records live in
 * LevelDB and a snapshot writes only those that changed; nothing here lists
 * accounts, which a keyed map cannot do.
 */
@ReplicatedState('ledger')
export class LedgerState extends KeyedState {
  readonly accounts = this.map<number>('accounts');
  readonly references = this.set('references');

  /** A snapshot from before the ledger kept keyed records: its accounts and references become records. */
  protected override importSnapshot(snapshot: unknown): void {
    const { accounts, references } = snapshot as WholeLedgerPicture;
    for (const [account, balance] of accounts) this.accounts.set(account, balance);
    for (const reference of references) this.references.add(reference);
  }
}
