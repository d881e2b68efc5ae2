import { randomClientId } from '@once/protocol';
import { SdkInvariantError } from './errors/sdk-invariant.error';
import { SessionIdentity } from './session-identity';

const token = Buffer.alloc(16, 9);

describe('SessionIdentity', () => {
  it('numbers requests from 1, one by one', () => {
    const identity = new SessionIdentity(randomClientId());
    expect([identity.assignRequest(), identity.assignRequest(), identity.nextRequest]).toEqual([
      1, 2, 3,
    ]);
  });

  it('binds a REGISTER: epoch, user and token; the watermark only grows', () => {
    const identity = new SessionIdentity(randomClientId());
    identity.bind({ userId: 4, epoch: 10, watermark: 0, resumeToken: token }, false);
    expect(identity.view()).toMatchObject({ epoch: 10, userId: 4, watermark: 0, nextRequest: 1 });
    expect(identity.hasSession).toBe(true);
    identity.assignRequest();
    identity.assignRequest();
    identity.observeWatermark(2);
    identity.observeWatermark(1);
    expect(identity.watermark).toBe(2);
    expect(() =>
      identity.bind({ userId: 4, epoch: 10, watermark: 2, resumeToken: token }, false),
    ).toThrow(SdkInvariantError);
  });

  it('continues after the watermark of an entry it did not know (a client id given in the options)', () => {
    const identity = new SessionIdentity(randomClientId());
    identity.bind({ userId: 1, epoch: 20, watermark: 41, resumeToken: token }, false);
    expect(identity.nextRequest).toBe(42);
  });

  it('recognises its own session in a REGISTER reply, and a new entry under its id as another session', () => {
    const identity = new SessionIdentity(randomClientId());
    identity.bind({ userId: 1, epoch: 5, watermark: 0, resumeToken: token }, false);
    for (let i = 0; i < 6; i++) identity.assignRequest();
    identity.observeWatermark(4);
    const reply = (watermark: number) => ({ userId: 1, epoch: 9, watermark, resumeToken: token });
    expect(identity.isContinuedBy(reply(4), true)).toBe(true);
    expect(identity.isContinuedBy(reply(6), true)).toBe(true);
    expect(identity.isContinuedBy(reply(0), true)).toBe(false); // the entry was made anew
    expect(identity.isContinuedBy(reply(7), true)).toBe(false); // numbers this client never sent
  });

  it('resets to a fresh client id: no session, numbering from 1', () => {
    const identity = new SessionIdentity(randomClientId());
    identity.bind({ userId: 3, epoch: 5, watermark: 0, resumeToken: token }, false);
    identity.assignRequest();
    const fresh = randomClientId();
    identity.reset(fresh);
    expect(identity.view()).toEqual({
      clientId: fresh,
      epoch: 0,
      nextRequest: 1,
      watermark: 0,
      userId: 3,
    });
    expect(identity.resumeToken).toBeUndefined();
    expect(() => identity.reset(fresh)).toThrow(SdkInvariantError);
  });

  it('restores only states that keep its invariants', () => {
    const base = {
      clientId: randomClientId(),
      userId: 1,
      epoch: 3,
      resumeToken: token,
      nextRequest: 5,
      watermark: 4,
    };
    expect(SessionIdentity.restore(base).view()).toMatchObject({ nextRequest: 5, watermark: 4 });
    expect(() => SessionIdentity.restore({ ...base, watermark: 5 })).toThrow(SdkInvariantError);
    expect(() => SessionIdentity.restore({ ...base, resumeToken: undefined })).toThrow(
      SdkInvariantError,
    );
    expect(() => new SessionIdentity('0'.repeat(32))).toThrow(SdkInvariantError);
  });
});
