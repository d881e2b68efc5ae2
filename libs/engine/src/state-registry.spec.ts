import { type ModuleState } from './module-state';
import {
  DuplicateStateError,
  InvalidStateVersionError,
  RetiredStateProvidedError,
  SnapshotTooNewError,
  StateRegistry,
} from './state-registry';
import { StateNotProvidedError } from './state-not-provided.error';

/** A list state that records the version each picture it read was written by. */
class ListState implements ModuleState {
  items: string[] = [];
  readVersions: number[] = [];
  toSnapshot(): unknown {
    return this.items;
  }
  fromSnapshot(snapshot: unknown, version: number): void {
    this.items = [...(snapshot as string[])];
    this.readVersions.push(version);
  }
}

function registry(options: { audit?: boolean; retired?: string[] } = {}) {
  const ledger = new ListState();
  const audit = new ListState();
  const states: Array<[string, ModuleState, number]> = [['ledger', ledger, 2]];
  if (options.audit !== false) states.push(['audit', audit, 1]);
  const made = new StateRegistry(states, { retired: options.retired });
  made.captureGenesis();
  return { made, ledger, audit };
}

describe('StateRegistry', () => {
  it('tags each picture with the version of the code that wrote it, in name order', () => {
    const { made, ledger } = registry();
    ledger.items.push('a');
    expect(made.snapshot()).toEqual([
      ['audit', '[]', 1],
      ['ledger', '["a"]', 2],
    ]);
  });

  it('given a snapshot without a state added since, then that state starts as at genesis and the others are restored with their versions', () => {
    const { made, ledger, audit } = registry();
    audit.items.push('stale');
    made.restore([['ledger', '["x"]', 1]], 64);
    expect(ledger.items).toEqual(['x']);
    expect(ledger.readVersions).toEqual([1]);
    expect(audit.items).toEqual([]);
  });

  it('given a snapshot holding a state no module provides, then it is refused by name, unless retired', () => {
    const { made } = registry({ audit: false });
    const pictures = [
      ['audit', '["kept"]', 1],
      ['ledger', '[]', 2],
    ] as const;
    expect(() => made.restore(pictures, 64)).toThrow(StateNotProvidedError);
    expect(() => made.restore(pictures, 64)).toThrow(/"audit".*retired: \{ states: \["audit"\] \}/);

    const retiring = registry({ audit: false, retired: ['audit'] });
    retiring.made.restore(pictures, 64);
    expect(retiring.made.snapshot().map(([name]) => name)).toEqual(['ledger']);
  });

  it('given a snapshot written by newer code, then it is refused before anything changes', () => {
    const { made, ledger } = registry();
    ledger.items.push('live');
    expect(() =>
      made.restore(
        [
          ['audit', '["new"]', 1],
          ['ledger', '[]', 3],
        ],
        9,
      ),
    ).toThrow(SnapshotTooNewError);
    expect(ledger.items).toEqual(['live']);
  });

  it('refuses a bad version, a duplicate name and a state both provided and retired', () => {
    expect(() => new StateRegistry([['a', new ListState(), 0]])).toThrow(InvalidStateVersionError);
    expect(
      () =>
        new StateRegistry([
          ['a', new ListState()],
          ['a', new ListState()],
        ]),
    ).toThrow(DuplicateStateError);
    expect(() => new StateRegistry([['a', new ListState()]], { retired: ['a'] })).toThrow(
      RetiredStateProvidedError,
    );
  });
});
