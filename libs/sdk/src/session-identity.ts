import { type ClientId, isClientId } from '@once/protocol';
import { ZERO_CLIENT_ID } from '@once/protocol/internal';
import { sdkAssert } from './errors/sdk-assert';

/** What a REGISTER reply says (PROTOCOL.md, "REGISTER"). */
export interface Registration {
  readonly userId: number;
  readonly epoch: number;
  readonly watermark: number;
  readonly resumeToken: Buffer;
}

/** A read-only view of the identity, as `OnceClient.identity` shows it. */
export interface IdentityView {
  /** The client id every request carries. */
  readonly clientId: ClientId;
  /** The session epoch; 0 before the first REGISTER of this client id committed. */
  readonly epoch: number;
  /** The number the next command will be sent under. */
  readonly nextRequest: number;
  /** The highest request number the node has reported committed for this session. */
  readonly watermark: number;
  /** The user the session belongs to; 0 before the first REGISTER. */
  readonly userId: number;
}

/**
 * The client's identity, which outlives every connection: client id, user,
 * epoch, resume token and request numbering.
 *
 * Invariants (asserted):
 * - `clientId` is a non-zero client id;
 * - `nextRequest ≥ 1` and only grows while the client id stays;
 * - `watermark < nextRequest` (the node cannot have committed a number this
 *   client never assigned) and only grows while the client id stays;
 * - `epoch` only grows while the client id stays (epochs come from the log);
 * - a resume token exists exactly when `epoch > 0`.
 * A new client id (after a lost session) starts all of them again.
 */
export class SessionIdentity implements IdentityView {
  private clientIdValue: ClientId;
  private userIdValue = 0;
  private epochValue = 0;
  private tokenValue: Buffer | undefined;
  private nextRequestValue = 1;
  private watermarkValue = 0;

  constructor(clientId: ClientId) {
    assertClientId(clientId);
    this.clientIdValue = clientId;
  }

  /** An identity as persisted (identity file). */
  static restore(state: {
    clientId: ClientId;
    userId: number;
    epoch: number;
    resumeToken: Buffer | undefined;
    nextRequest: number;
    watermark: number;
  }): SessionIdentity {
    const identity = new SessionIdentity(state.clientId);
    identity.userIdValue = state.userId;
    identity.epochValue = state.epoch;
    identity.tokenValue = state.resumeToken;
    identity.nextRequestValue = state.nextRequest;
    identity.watermarkValue = state.watermark;
    identity.check();
    return identity;
  }

  get clientId(): ClientId {
    return this.clientIdValue;
  }
  get userId(): number {
    return this.userIdValue;
  }
  get epoch(): number {
    return this.epochValue;
  }
  get resumeToken(): Buffer | undefined {
    return this.tokenValue;
  }
  get nextRequest(): number {
    return this.nextRequestValue;
  }
  get watermark(): number {
    return this.watermarkValue;
  }
  /** True once a REGISTER of this client id committed: there is a session to resume. */
  get hasSession(): boolean {
    return this.epochValue > 0;
  }

  view(): IdentityView {
    return {
      clientId: this.clientIdValue,
      epoch: this.epochValue,
      nextRequest: this.nextRequestValue,
      watermark: this.watermarkValue,
      userId: this.userIdValue,
    };
  }

  /** Takes the next request number. Numbers are never reused for this client id. */
  assignRequest(): number {
    const request = this.nextRequestValue;
    this.nextRequestValue = request + 1;
    return request;
  }

  /**
   * A REGISTER of this client id committed. Without commands in doubt, the
   * numbering continues after the entry's watermark (a client id given in the
   * options may have a history this process does not know).
   */
  bind(registration: Registration, hasUnanswered: boolean): void {
    sdkAssert(
      registration.epoch > this.epochValue,
      `epoch ${registration.epoch} does not grow past ${this.epochValue}`,
    );
    this.userIdValue = registration.userId;
    this.epochValue = registration.epoch;
    this.tokenValue = Buffer.from(registration.resumeToken);
    if (!hasUnanswered && registration.watermark >= this.nextRequestValue) {
      this.nextRequestValue = registration.watermark + 1;
    }
    this.observeWatermark(registration.watermark);
  }

  /**
   * Whether a REGISTER reply describes this session: an entry that kept every
   * request this client knows committed, and none it never sent. Anything else
   * is a different entry under the same client id (the session was evicted and
   * a REGISTER made a new one), whose numbering this client must not continue.
   */
  isContinuedBy(registration: Registration, hasUnanswered: boolean): boolean {
    if (!this.hasSession && !hasUnanswered) return true;
    return (
      registration.watermark >= this.watermarkValue &&
      registration.watermark < this.nextRequestValue
    );
  }

  /** The node reported `watermark` committed for this session. */
  observeWatermark(watermark: number): void {
    if (watermark <= this.watermarkValue) return;
    sdkAssert(
      watermark < this.nextRequestValue,
      `watermark ${watermark} beyond the last assigned request ${this.nextRequestValue - 1}`,
    );
    this.watermarkValue = watermark;
  }

  /** A fresh session under a new client id: numbering restarts at 1. The user stays. */
  reset(clientId: ClientId): void {
    assertClientId(clientId);
    sdkAssert(clientId !== this.clientIdValue, 'a reset needs a new client id');
    this.clientIdValue = clientId;
    this.epochValue = 0;
    this.tokenValue = undefined;
    this.nextRequestValue = 1;
    this.watermarkValue = 0;
  }

  private check(): void {
    assertClientId(this.clientIdValue);
    sdkAssert(
      Number.isSafeInteger(this.nextRequestValue) && this.nextRequestValue >= 1,
      'nextRequest ≥ 1',
    );
    sdkAssert(
      Number.isSafeInteger(this.watermarkValue) &&
        this.watermarkValue >= 0 &&
        this.watermarkValue < this.nextRequestValue,
      'watermark < nextRequest',
    );
    sdkAssert(Number.isSafeInteger(this.epochValue) && this.epochValue >= 0, 'epoch ≥ 0');
    sdkAssert(this.epochValue > 0 === (this.tokenValue !== undefined), 'token ⇔ epoch > 0');
  }
}

function assertClientId(clientId: ClientId): void {
  sdkAssert(
    isClientId(clientId) && clientId !== ZERO_CLIENT_ID,
    `not a non-zero client id: ${String(clientId)}`,
  );
}
