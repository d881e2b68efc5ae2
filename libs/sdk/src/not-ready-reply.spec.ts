import { errorBody } from '@once/protocol/internal';
import { leaderHintOf } from './not-ready-reply';

const body = (value: unknown) => Buffer.from(JSON.stringify(value));
const notReady = (error: Record<string, unknown>) =>
  body({ ok: false, error: { code: 'NOT_READY', message: 'this node is a follower', ...error } });

describe('leaderHintOf', () => {
  it("reads the address a follower's NOT_READY names as its leader", () => {
    expect(leaderHintOf(notReady({ leader: '127.0.0.1:7801' }))).toEqual({
      host: '127.0.0.1',
      port: 7801,
    });
    expect(leaderHintOf(notReady({ leader: '[::1]:7801' }))).toEqual({ host: '::1', port: 7801 });
    expect(leaderHintOf(notReady({ leader: 'once-2.internal:7700' }))).toEqual({
      host: 'once-2.internal',
      port: 7700,
    });
  });

  it('reads no hint from a body without one: a single node, a follower that knows no leader', () => {
    expect(leaderHintOf(errorBody('NOT_READY', 'the node is replaying its journal'))).toBe(
      undefined,
    );
    expect(leaderHintOf(notReady({ leader: null }))).toBe(undefined);
    expect(leaderHintOf(Buffer.alloc(0))).toBe(undefined);
  });

  it('ignores whatever is malformed rather than trying it', () => {
    for (const leader of ['', '127.0.0.1', '127.0.0.1:0', ':7801', '::1:7801', 'a b:1', 7801]) {
      expect(leaderHintOf(notReady({ leader }))).toBe(undefined);
    }
    for (const text of ['{', 'null', '"127.0.0.1:7801"', '{"error":"127.0.0.1:7801"}']) {
      expect(leaderHintOf(Buffer.from(text))).toBe(undefined);
    }
    expect(leaderHintOf(body({ ok: false, leader: '127.0.0.1:7801' }))).toBe(undefined);
    expect(leaderHintOf(body({ ok: false, error: null }))).toBe(undefined);
  });
});
