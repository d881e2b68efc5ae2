/**
 * The public API of `@once/sdk`: `OnceClient`, its options and events, and its
 * typed errors (each with its stable `code`); and, for the idempotent HTTP
 * endpoints of a service, `idempotentRequest` and `IdempotentHttpClient`.
 *
 * @packageDocumentation
 * @public
 */
export { OnceClient, type CloseOptions } from './once-client';
export {
  type OnceClientOptions,
  type ReconnectOptions,
  type DeprecatedOnceClientOptionNames,
  type DeprecatedReconnectOptionNames,
  DEFAULT_OPTIONS,
} from './once-client-options';
export { type OnceClientEvent, type ResumeHow, type WaitReason } from './once-client-event';
export { type OnceClientLogger } from './client-logger';
export { type LeaderHintTrust } from './leader-trust';
export { type NodeAnswer } from './node-answer';
export { type NodeAddress } from './node-address';
export { type RecoveredRequest } from './recovered-request';
export { PATTERN_CATALOGUE_QUERY, type PatternCatalogue } from './pattern-catalogue';
export { type IdentityView } from './session-identity';
export { idempotentRequest } from './http/idempotent-request';
export {
  IdempotentHttpClient,
  type IdempotentHttpClientOptions,
  type IdempotentHttpClientRequest,
} from './http/idempotent-http-client';
export {
  type IdempotentRequestOptions,
  type LeaderUrlResolver,
  DEFAULT_IDEMPOTENT_REQUEST_OPTIONS,
} from './http/idempotent-request-options';
export { type IdempotentRequestInit } from './http/idempotent-request-init';
export { type IdempotentResponse } from './http/idempotent-response';
export { OnceError } from './errors/once.error';
export { ProtocolStatusError } from './errors/protocol-status.error';
export { BadFrameError } from './errors/bad-frame.error';
export { VersionUnsupportedError } from './errors/version-unsupported.error';
export { InvalidRequestError } from './errors/invalid-request.error';
export { UnauthenticatedError } from './errors/unauthenticated.error';
export { NotBoundError } from './errors/not-bound.error';
export { ClientOwnedByOtherUserError } from './errors/client-owned-by-other-user.error';
export { EpochAheadError } from './errors/epoch-ahead.error';
export { RequestGapError } from './errors/request-gap.error';
export { RequestConflictError } from './errors/request-conflict.error';
export { AlreadyAppliedError } from './errors/already-applied.error';
export { NotReadyError } from './errors/not-ready.error';
export { SessionEvictedError } from './errors/session-evicted.error';
export { NoSessionError } from './errors/no-session.error';
export { SessionTooLowError } from './errors/session-too-low.error';
export { EvictedError } from './errors/evicted.error';
export { SupersededError } from './errors/superseded.error';
export { LoggedOutError } from './errors/logged-out.error';
export { ExpiredError } from './errors/expired.error';
export { OutcomeUnknownError } from './errors/outcome-unknown.error';
export { CommandRefusedError } from './errors/command-refused.error';
export { RequestTimeoutError } from './errors/request-timeout.error';
export { ClientClosedError } from './errors/client-closed.error';
export { ConnectError } from './errors/connect.error';
export { LeaderNotTrustedError } from './errors/leader-not-trusted.error';
export { InvalidOptionsError } from './errors/invalid-options.error';
export { OptionNameConflictError } from './errors/option-name-conflict.error';
export { InvalidPayloadError } from './errors/invalid-payload.error';
export { InvalidReplyError } from './errors/invalid-reply.error';
export { HttpOutcomeUnknownError } from './errors/http-outcome-unknown.error';
export { IdentityFileCorruptError } from './errors/identity-file-corrupt.error';
export { IdentityFileWriteError } from './errors/identity-file-write.error';
export { SdkInvariantError } from './errors/sdk-invariant.error';
