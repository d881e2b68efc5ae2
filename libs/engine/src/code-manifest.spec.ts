import {
  type CodeManifest,
  type CodeSupport,
  ManifestInvalidError,
  decodeManifest,
  describeManifestChange,
  encodeManifest,
  manifestOf,
  sameManifest,
  unsupportedBy,
} from './code-manifest';

function support(overrides: Partial<CodeSupport> = {}): CodeSupport {
  return {
    states: new Map([
      ['ledger', 2],
      ['audit', 1],
    ]),
    commands: new Set(['ledger.deposit', 'audit.record']),
    owners: new Map([
      ['ledger.deposit', 'ledger'],
      ['audit.record', 'audit'],
    ]),
    retiredStates: new Set(),
    retiredCommands: new Set(),
    ...overrides,
  };
}

function manifest(
  states: Array<[string, number]>,
  commands: string[] = [],
  owners: Array<[string, string]> = [],
): CodeManifest {
  return { states: new Map(states), commands: new Set(commands), owners: new Map(owners) };
}

describe('code manifest', () => {
  it('encodes the same bytes whatever order the code was built in, and decodes them back', () => {
    const one = manifestOf(support());
    const other = manifestOf(
      support({
        states: new Map([
          ['audit', 1],
          ['ledger', 2],
        ]),
        commands: new Set(['audit.record', 'ledger.deposit']),
      }),
    );
    expect(encodeManifest(one).equals(encodeManifest(other))).toBe(true);
    expect(encodeManifest(one).toString()).toBe(
      '{"states":[["audit",1],["ledger",2]],"commands":["audit.record","ledger.deposit"],"owners":[["audit.record","audit"],["ledger.deposit","ledger"]]}',
    );
    expect(sameManifest(decodeManifest(encodeManifest(one)), other)).toBe(true);
    expect(
      sameManifest(
        one,
        manifest(
          [
            ['audit', 1],
            ['ledger', 2],
          ],
          [...one.commands],
        ),
      ),
    ).toBe(false);
  });

  it.each([
    ['not JSON', 'nope'],
    ['no lists', '{}'],
    ['a version of 0', '{"states":[["a",0]],"commands":[],"owners":[]}'],
    ['a fractional version', '{"states":[["a",1.5]],"commands":[],"owners":[]}'],
    ['a command that is not a string', '{"states":[],"commands":[7],"owners":[]}'],
    ['an owner that is not a pair', '{"states":[],"commands":[],"owners":["a"]}'],
  ])('refuses a body with %s as MANIFEST_INVALID', (_, text) => {
    expect(() => decodeManifest(Buffer.from(text))).toThrow(ManifestInvalidError);
  });

  it('tells apart a manifest the code provides from a downgrade, a missing state and a missing command', () => {
    const code = support();
    expect(unsupportedBy(manifestOf(code), code)).toBeUndefined();
    expect(unsupportedBy(manifest([['ledger', 1]], ['ledger.deposit']), code)).toBeUndefined();
    expect(unsupportedBy(manifest([['ledger', 3]]), code)).toEqual({
      kind: 'state-too-new',
      state: 'ledger',
      journaled: 3,
      provided: 2,
    });
    expect(unsupportedBy(manifest([['fees', 1]]), code)).toEqual({
      kind: 'state-missing',
      state: 'fees',
      journaled: 1,
    });
    expect(unsupportedBy(manifest([], ['fees.charge']), code)).toEqual({
      kind: 'command-missing',
      pattern: 'fees.charge',
    });
  });

  it('accepts what the code retired on purpose: a command by name, or with its state', () => {
    const journaled = manifest(
      [['fees', 4]],
      ['fees.charge', 'fees.refund'],
      [['fees.refund', 'fees']],
    );
    const byName = support({
      retiredStates: new Set(['fees']),
      retiredCommands: new Set(['fees.charge']),
    });
    expect(unsupportedBy(journaled, byName)).toBeUndefined();
    const stateOnly = support({ retiredStates: new Set(['fees']) });
    // fees.refund goes with its state; fees.charge belongs to none and must be named.
    expect(unsupportedBy(journaled, stateOnly)).toEqual({
      kind: 'command-missing',
      pattern: 'fees.charge',
    });
  });

  it('names what changed for the boot log', () => {
    const before = manifest(
      [
        ['ledger', 1],
        ['old', 1],
      ],
      ['a', 'b'],
    );
    const after = manifest(
      [
        ['ledger', 2],
        ['audit', 1],
      ],
      ['a', 'c'],
    );
    expect(describeManifestChange(before, after)).toBe(
      'state ledger v1 → v2; state audit added at v1; state old removed; commands added: c; commands removed: b',
    );
    expect(describeManifestChange(undefined, after)).toBe(
      'first manifest: states ledger v2, audit v1; 2 commands',
    );
  });
});
