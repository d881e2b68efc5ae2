import { Listeners } from './listeners';
import { type LeaseRole, NO_ROLE, sameRole } from './lease-role';

/**
 * A node's role with the moment it stops being known: a leader's TTL after
 * its last renewal was sent, a follower's TTL after it last heard of the
 * holder. Past that moment the role reads `none`, whether or not the timer
 * that says so has fired yet, so no caller ever sees a leadership that may
 * have ended. Listeners hear each change, renewals excluded.
 */
export class TimedRole {
  private role: LeaseRole = NO_ROLE;
  private validUntilMs = 0;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private readonly listeners: Listeners<LeaseRole>;

  constructor(
    /** Called with the role that just expired, after the role became `none`. */
    private readonly onExpired: (expired: LeaseRole) => void,
    onListenerError: (error: unknown) => void,
  ) {
    this.listeners = new Listeners(onListenerError);
  }

  /** The role now (`none` once its validity has passed). */
  get(): LeaseRole {
    if (this.role.role !== 'none' && performance.now() >= this.validUntilMs) {
      const expired = this.role;
      this.set(NO_ROLE, 0);
      this.onExpired(expired);
    }
    return this.role;
  }

  /** The role as last set, expired or not: what a release must look at. */
  last(): LeaseRole {
    return this.role;
  }

  /** Enters `role` until `validUntilMs` (a `performance.now()` time; ignored for `none`). */
  set(role: LeaseRole, validUntilMs: number): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.validUntilMs = validUntilMs;
    const changed = !sameRole(role, this.role);
    this.role = role;
    if (role.role !== 'none' && !this.closed) this.arm();
    if (changed) this.listeners.emit(role);
  }

  onChange(listener: (role: LeaseRole) => void): () => void {
    return this.listeners.add(listener);
  }

  /** Stops the timer for good; `get` still expires the role by the clock. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Reads the role when its validity ends (again later, should the timer fire a little early). */
  private arm(): void {
    const delayMs = Math.max(1, Math.ceil(this.validUntilMs - performance.now()));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.get().role !== 'none' && this.timer === undefined && !this.closed) this.arm();
    }, delayMs);
  }
}
