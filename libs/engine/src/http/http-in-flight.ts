import { type HttpResponseRecord, type HttpSubmitResult } from './http-request';

interface Waiter {
  readonly resolve: (result: HttpSubmitResult) => void;
  readonly reject: (error: Error) => void;
}

/** One request journaled and not yet applied, and who waits for its result besides its submitter. */
export interface HttpInFlightRequest {
  readonly fingerprint: Buffer;
  readonly waiters: Waiter[];
}

/**
 * The HTTP requests this node journaled and has not applied yet, by scoped
 * key: what admission consults after the key table, so a retry that arrives
 * while its first attempt is being applied is not journaled a second time.
 * Live state only (not replicated): a new leader starts with none, and the
 * applier settles any race it could not see (see `Applier`).
 */
export class HttpInFlight {
  private readonly requests = new Map<string, HttpInFlightRequest>();

  get size(): number {
    return this.requests.size;
  }

  get(scopedKey: string): HttpInFlightRequest | undefined {
    return this.requests.get(scopedKey);
  }

  /** Notes that `scopedKey`'s request was journaled (the caller checked it was not in flight). */
  start(scopedKey: string, fingerprint: Buffer): void {
    this.requests.set(scopedKey, { fingerprint: Buffer.from(fingerprint), waiters: [] });
  }

  /** Resolves with the result of `request` once it settles, as a retry sees it. */
  wait(request: HttpInFlightRequest): Promise<HttpSubmitResult> {
    return new Promise((resolve, reject) => request.waiters.push({ resolve, reject }));
  }

  /**
   * The request applied with `result`: it is no longer in flight, and each
   * waiter gets that result as a retry does: an `applied` response as
   * `replayed`.
   */
  settle(scopedKey: string, result: HttpSubmitResult): void {
    const request = this.take(scopedKey);
    if (!request || request.waiters.length === 0) return;
    const seen = result.kind === 'applied' ? replayed(result.response) : result;
    for (const waiter of request.waiters) waiter.resolve(seen);
  }

  /** The request will not be applied on this node's behalf (journal failure, end of term): its waiters hear `error`. */
  fail(scopedKey: string, error: Error): void {
    const request = this.take(scopedKey);
    if (!request) return;
    for (const waiter of request.waiters) waiter.reject(error);
  }

  private take(scopedKey: string): HttpInFlightRequest | undefined {
    const request = this.requests.get(scopedKey);
    this.requests.delete(scopedKey);
    return request;
  }
}

function replayed(response: HttpResponseRecord): HttpSubmitResult {
  return { kind: 'replayed', response };
}
