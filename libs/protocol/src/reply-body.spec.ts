import fc from 'fast-check';
import { errorBody, okBody, parseReplyBody } from './reply-body';

describe('reply bodies', () => {
  it('write the outcome with fixed key order', () => {
    expect(okBody({ balance: 5 }).toString()).toBe('{"ok":true,"result":{"balance":5}}');
    expect(errorBody('UNKNOWN_PATTERN', 'no handler for "x"').toString()).toBe(
      '{"ok":false,"error":{"code":"UNKNOWN_PATTERN","message":"no handler for \\"x\\""}}',
    );
  });

  it('carry an rpcError after the message when one is given and JSON can express it', () => {
    expect(errorBody('INVALID_SEQ', 'bad', { code: 'INVALID_SEQ', at: [1] }).toString()).toBe(
      '{"ok":false,"error":{"code":"INVALID_SEQ","message":"bad","rpcError":{"code":"INVALID_SEQ","at":[1]}}}',
    );
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    for (const unwritable of [undefined, null, cycle, { n: 1n }, () => 1]) {
      expect(errorBody('X', 'm', unwritable).toString()).toBe(
        '{"ok":false,"error":{"code":"X","message":"m"}}',
      );
    }
    expect(parseReplyBody(errorBody('X', 'm', { a: 1 }))).toEqual({
      ok: false,
      error: { code: 'X', message: 'm' },
    });
  });

  it('always carry a result: null, marked empty, when JSON has no value for it', () => {
    const empty = '{"ok":true,"result":null,"empty":true}';
    expect(okBody(undefined).toString()).toBe(empty);
    expect(okBody(null).toString()).toBe('{"ok":true,"result":null}');
    expect(okBody(() => 1).toString()).toBe(empty);
    expect(okBody({ toJSON: () => undefined }).toString()).toBe(empty);
    expect(parseReplyBody(okBody(undefined))).toEqual({ ok: true, result: undefined });
    expect(parseReplyBody(okBody(null))).toEqual({ ok: true, result: null });
  });

  it('are UTF-8', () => {
    expect(okBody('é')).toEqual(Buffer.from('{"ok":true,"result":"é"}', 'utf8'));
  });

  it('round-trip through parseReplyBody', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (result) => {
        const parsed = parseReplyBody(okBody(result));
        expect(parsed?.ok).toBe(true);
        if (parsed?.ok) expect(JSON.stringify(parsed.result)).toBe(JSON.stringify(result));
      }),
    );
    fc.assert(
      fc.property(fc.string(), fc.string({ unit: 'binary' }), (code, message) => {
        expect(parseReplyBody(errorBody(code, message))).toEqual({
          ok: false,
          error: { code, message },
        });
      }),
    );
  });

  it('parseReplyBody refuses what is not an outcome', () => {
    for (const text of [
      '',
      'null',
      '[]',
      '{}',
      '{"ok":false}',
      '{"ok":false,"error":{"code":1}}',
    ]) {
      expect(parseReplyBody(Buffer.from(text))).toBeUndefined();
    }
  });
});
