import { EVICTION_REASON_NAMES, EvictionReason, STATUS_NAMES, Status } from '@once/protocol';
import { errorBody } from '@once/protocol/internal';
import { AlreadyAppliedError } from './already-applied.error';
import { BadFrameError } from './bad-frame.error';
import { ClientOwnedByOtherUserError } from './client-owned-by-other-user.error';
import { EpochAheadError } from './epoch-ahead.error';
import { evictionError, replyMessage, statusError } from './error-mapping';
import { EvictedError } from './evicted.error';
import { ExpiredError } from './expired.error';
import { InvalidReplyError } from './invalid-reply.error';
import { InvalidRequestError } from './invalid-request.error';
import { LoggedOutError } from './logged-out.error';
import { NoSessionError } from './no-session.error';
import { NotBoundError } from './not-bound.error';
import { NotReadyError } from './not-ready.error';
import { OnceError } from './once.error';
import { ProtocolStatusError } from './protocol-status.error';
import { RequestConflictError } from './request-conflict.error';
import { RequestGapError } from './request-gap.error';
import { SessionEvictedError } from './session-evicted.error';
import { SessionTooLowError } from './session-too-low.error';
import { SupersededError } from './superseded.error';
import { UnauthenticatedError } from './unauthenticated.error';
import { VersionUnsupportedError } from './version-unsupported.error';

const STATUS_CLASSES: Array<[Status, new (...args: never[]) => ProtocolStatusError]> = [
  [Status.BadFrame, BadFrameError],
  [Status.VersionUnsupported, VersionUnsupportedError],
  [Status.InvalidRequest, InvalidRequestError],
  [Status.Unauthenticated, UnauthenticatedError],
  [Status.NotBound, NotBoundError],
  [Status.ClientOwnedByOtherUser, ClientOwnedByOtherUserError],
  [Status.EpochAhead, EpochAheadError],
  [Status.RequestGap, RequestGapError],
  [Status.RequestConflict, RequestConflictError],
  [Status.AlreadyApplied, AlreadyAppliedError],
  [Status.NotReady, NotReadyError],
];

const EVICTION_CLASSES: Array<[EvictionReason, new (...args: never[]) => SessionEvictedError]> = [
  [EvictionReason.NoSession, NoSessionError],
  [EvictionReason.SessionTooLow, SessionTooLowError],
  [EvictionReason.Evicted, EvictedError],
  [EvictionReason.Superseded, SupersededError],
  [EvictionReason.LoggedOut, LoggedOutError],
  [EvictionReason.Expired, ExpiredError],
];

describe('statusError', () => {
  it('covers every error status of the protocol', () => {
    const covered = STATUS_CLASSES.map(([status]) => status).sort((a, b) => a - b);
    const errorStatuses = Object.values(Status)
      .filter((value): value is Status => typeof value === 'number' && value !== Status.Ok)
      .sort((a, b) => a - b);
    expect(covered).toEqual(errorStatuses);
  });

  it.each(STATUS_CLASSES)(
    'maps status %i to its class, with the protocol name as code',
    (status, errorClass) => {
      const error = statusError(status, 'the node said so', 7);
      expect(error).toBeInstanceOf(errorClass);
      expect(error).toBeInstanceOf(ProtocolStatusError);
      expect(error).toBeInstanceOf(OnceError);
      expect(error).toBeInstanceOf(Error);
      expect(error).toMatchObject({
        code: STATUS_NAMES[status],
        status,
        message: 'the node said so',
      });
      expect(error.name).toBe(errorClass.name);
    },
  );

  it('keeps the request number of ALREADY_APPLIED', () => {
    expect(statusError(Status.AlreadyApplied, 'gone', 42)).toMatchObject({ request: 42 });
  });

  it.each([Status.Ok, 12, 999])(
    'treats status %i as an invalid reply, not a protocol error',
    (status) => {
      const error = statusError(status, 'x');
      expect(error).toBeInstanceOf(InvalidReplyError);
      expect(error.code).toBe('INVALID_REPLY');
    },
  );
});

describe('evictionError', () => {
  it('covers every eviction reason of the protocol', () => {
    expect(EVICTION_CLASSES.map(([reason]) => reason).sort((a, b) => a - b)).toEqual(
      Object.values(EvictionReason)
        .filter((value): value is EvictionReason => typeof value === 'number')
        .sort((a, b) => a - b),
    );
  });

  it.each(EVICTION_CLASSES)(
    'maps reason %i to its class, with the protocol name as code',
    (reason, errorClass) => {
      const error = evictionError(reason);
      expect(error).toBeInstanceOf(errorClass);
      expect(error).toBeInstanceOf(SessionEvictedError);
      expect(error).toBeInstanceOf(OnceError);
      expect(error).toMatchObject({ code: EVICTION_REASON_NAMES[reason], reason });
      expect(error.name).toBe(errorClass.name);
    },
  );

  it.each([0, 7, 300])('treats reason %i as an invalid reply', (reason) => {
    expect(evictionError(reason)).toBeInstanceOf(InvalidReplyError);
  });
});

describe('replyMessage', () => {
  it('takes the message of an error body', () => {
    expect(replyMessage(errorBody('NOT_READY', 'the node is replaying'), 'fallback')).toBe(
      'the node is replaying',
    );
  });

  it.each([[Buffer.alloc(0)], [Buffer.from('{"ok":true,"result":1}')], [Buffer.from('not json')]])(
    'falls back when the body carries no message',
    (body) => {
      expect(replyMessage(body, 'fallback')).toBe('fallback');
    },
  );
});
