/** How a pending request's outcome reaches whoever waits for it. */
export interface Settler {
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

/** A replicated request: a COMMAND, or the LOGOUT that ends the session. */
export type ReplicatedKind = 'command' | 'logout';

/** The link (connection) a frame was written to; compared by identity only. */
export type LinkTag = object;

/**
 * A caller's promise that is settled once — by an answer, a timeout or a
 * failure, whichever comes first — with its timeout timer cleared.
 */
abstract class SettledOnce {
  /** The caller's promise is settled. */
  done = false;
  timer: NodeJS.Timeout | undefined;

  constructor(private readonly settler: Settler) {}

  resolve(result: unknown): void {
    if (this.finish()) this.settler.resolve(result);
  }

  reject(error: unknown): void {
    if (this.finish()) this.settler.reject(error);
  }

  private finish(): boolean {
    if (this.done) return false;
    this.done = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    return true;
  }
}

/**
 * One COMMAND (or LOGOUT) from the call to its answer.
 *
 * Its lifecycle: waiting for room → queued → numbered (in flight: in the
 * pipeline under a request number, possibly sent, possibly on several links in
 * turn) → answered. The body bytes never change, so every send of it carries
 * the same `checksum_body`.
 */
export class CommandEntry extends SettledOnce {
  /** 0 until numbered; then fixed for the life of the client id. */
  request = 0;
  /** Its number is durable (in the identity file, or no file is kept): it may be sent. */
  durable = false;
  /** The link it was last written to, if that link is still the one in use. */
  sentOn: LinkTag | undefined;
  /** Written to a link at least once: from then on it is in doubt until answered. */
  everSent = false;

  constructor(
    readonly kind: ReplicatedKind,
    readonly pattern: string,
    readonly body: Buffer,
    settler: Settler,
  ) {
    super(settler);
  }
}

/** One QUERY from the call to its answer. Queries are reads: resending one is harmless. */
export class QueryEntry extends SettledOnce {
  constructor(
    readonly pattern: string,
    readonly body: Buffer,
    settler: Settler,
  ) {
    super(settler);
  }
}
