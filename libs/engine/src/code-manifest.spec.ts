import {
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
    retiredStates: new Set(),
    retiredCommands: new Set(),
    ...overrides,
  };
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
      '{"states":[["audit",1],["ledger",2]],"commands":["audit.record","ledger.deposit"]}',
    );
    expect(sameManifest(decodeManifest(encodeManifest(one)), other)).toBe(true);
  });

  it.each([
    ['not JSON', 'nope'],
    ['no lists', '{}'],
    ['a version of 0', '{"states":[["a",0]],"commands":[]}'],
    ['a fractional version', '{"states":[["a",1.5]],"commands":[]}'],
    ['a command that is not a string', '{"states":[],"commands":[7]}'],
  ])('refuses a body with %s as MANIFEST_INVALID', (_, text) => {
    expect(() => decodeManifest(Buffer.from(text))).toThrow(ManifestInvalidError);
  });

  it('tells apart a manifest the code provides from a downgrade, a missing state and a missing command', () => {
    const code = support();
    expect(unsupportedBy(manifestOf(code), code)).toBeUndefined();
    const older = {
      states: new Map([['ledger', 1]]),
      commands: new Set(['ledger.deposit']),
    };
    expect(unsupportedBy(older, code)).toBeUndefined();
    expect(unsupportedBy({ states: new Map([['ledger', 3]]), commands: new Set() }, code)).toEqual({
      kind: 'state-too-new',
      state: 'ledger',
      journaled: 3,
      provided: 2,
    });
    expect(unsupportedBy({ states: new Map([['fees', 1]]), commands: new Set() }, code)).toEqual({
      kind: 'state-missing',
      state: 'fees',
      journaled: 1,
    });
    expect(unsupportedBy({ states: new Map(), commands: new Set(['fees.charge']) }, code)).toEqual({
      kind: 'command-missing',
      pattern: 'fees.charge',
    });
  });

  it('accepts what the code retired on purpose', () => {
    const code = support({
      retiredStates: new Set(['fees']),
      retiredCommands: new Set(['fees.charge']),
    });
    const journaled = { states: new Map([['fees', 4]]), commands: new Set(['fees.charge']) };
    expect(unsupportedBy(journaled, code)).toBeUndefined();
  });

  it('names what changed for the boot log', () => {
    const before = {
      states: new Map([
        ['ledger', 1],
        ['old', 1],
      ]),
      commands: new Set(['a', 'b']),
    };
    const after = {
      states: new Map([
        ['ledger', 2],
        ['audit', 1],
      ]),
      commands: new Set(['a', 'c']),
    };
    expect(describeManifestChange(before, after)).toBe(
      'state ledger v1 → v2; state audit added at v1; state old removed; commands added: c; commands removed: b',
    );
    expect(describeManifestChange(undefined, after)).toBe(
      'first manifest: states ledger v2, audit v1; 2 commands',
    );
  });
});
