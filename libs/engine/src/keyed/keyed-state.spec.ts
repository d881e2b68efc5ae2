import { KeyedState } from './keyed-state';
import { KeyedStore } from './keyed-store';

describe('KeyedState', () => {
  class Accounts extends KeyedState {
    readonly balances = this.map<number>('balances');
  }

  it('works unregistered (a unit test builds it by hand), and refuses registration once written', () => {
    const state = new Accounts();
    state.balances.set('a', 1);
    expect(state.balances.get('a')).toBe(1);
    expect(() => state.bindKeyedStore(new KeyedStore(undefined), 'accounts')).toThrow(
      /written before its state was registered/,
    );
  });

  it('reads and writes the store it is registered in, under its name, and a new engine’s store replaces it', () => {
    const state = new Accounts();
    const first = new KeyedStore(undefined);
    state.bindKeyedStore(first, 'accounts');
    state.balances.set('a', 5);
    expect(first.get('accounts/balances', 'a')).toBe(5);
    const second = new KeyedStore(undefined);
    state.bindKeyedStore(second, 'accounts');
    expect(state.balances.get('a')).toBeUndefined();
    expect(state.balances.size).toBe(0);
  });

  it('takes no picture of its records, and refuses a whole-object picture unless it says how to import one', () => {
    const state = new Accounts();
    expect(state.toSnapshot()).toBeNull();
    expect(() => state.fromSnapshot(null, 1)).not.toThrow();
    expect(() => state.fromSnapshot({ balances: [] }, 1)).toThrow(/override importSnapshot/);
  });
});
