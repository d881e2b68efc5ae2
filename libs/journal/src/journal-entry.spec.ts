import { EntryKind, isEntryKind } from './journal-entry';

describe('isEntryKind', () => {
  it('knows every EntryKind code, and nothing else', () => {
    const codes = Object.values(EntryKind).filter((value) => typeof value === 'number');
    // Register, Logout, Command, Release, Boot, Manifest (18), ReplyCheck (19), HttpRequest (20).
    expect(codes.length).toBe(8);
    for (const code of codes) expect(isEntryKind(code)).toBe(true);
    for (const other of [0, 4, 15, 21, 255, -1, 1.5, Number.NaN]) {
      expect(isEntryKind(other)).toBe(false);
    }
  });
});
