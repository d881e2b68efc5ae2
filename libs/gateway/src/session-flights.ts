import { type ClientId } from '@once/protocol';

/** A request admitted to the journal whose outcome has not been applied yet. */
export interface InFlightRequest<Origin> {
  /** The epoch it was admitted under. */
  readonly epoch: number;
  readonly request: number;
  /** COMMAND or LOGOUT. */
  readonly operation: number;
  /** `checksum_body` of the request (an own copy, not a view of a socket chunk). */
  readonly checksum: Buffer;
  /** The connection it arrived on (the reply goes to the session's holder when it commits). */
  readonly origin: Origin;
  /** `performance.now()` when it was admitted: the start of its admission-to-reply latency. */
  readonly admittedAtMs: number;
}

class SessionFlight<Origin> {
  /** Keyed by `epoch:request`: after a REGISTER, a number may be in flight under the old and the new epoch. */
  readonly requests = new Map<string, InFlightRequest<Origin>>();
  readonly capacityWaiters: Array<() => void> = [];
  /** Journal submissions of one session happen in order, even across connections. */
  readonly serialized: Array<() => void | Promise<void>> = [];
  /** True while a serialized work item runs (it may be awaiting). */
  running = false;
}

const key = (epoch: number, request: number) => `${epoch}:${request}`;

/** What a serialized item's failure rejects with: always an Error. */
function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as PromiseLike<T>).then === 'function'
  );
}

/**
 * Per session: the requests admitted but not yet applied. The client table
 * knows only what applied; this is the rest of the preflight ("next expected"
 * is one more than the highest admitted, not the watermark).
 *
 * A request admitted under an epoch that a later REGISTER replaced will be
 * refused when it applies (fenced), so it neither counts as "in flight" nor
 * raises "next expected" for requests of the new epoch: a client that
 * resumed by REGISTER resends it under the new epoch and that one is admitted.
 *
 * Invariant: a flight exists only while it has requests in flight or work
 * queued; an idle session costs nothing here.
 */
export class SessionFlights<Origin> {
  private readonly flights = new Map<ClientId, SessionFlight<Origin>>();

  /** Highest request number admitted for (`client`, `epoch`), given the table's watermark. */
  highestAdmitted(client: ClientId, epoch: number, watermark: number): number {
    const flight = this.flights.get(client);
    let highest = watermark;
    if (flight) {
      for (const inFlight of flight.requests.values()) {
        if (inFlight.epoch === epoch && inFlight.request > highest) highest = inFlight.request;
      }
    }
    return highest;
  }

  inFlight(client: ClientId, epoch: number, request: number): InFlightRequest<Origin> | undefined {
    return this.flights.get(client)?.requests.get(key(epoch, request));
  }

  /** Requests of `client` in flight, whatever their epoch (they all occupy the journal queue). */
  count(client: ClientId): number {
    return this.flights.get(client)?.requests.size ?? 0;
  }

  /** Marks `request` admitted under `epoch`; from now on a retry of it is "in flight". */
  admit(
    client: ClientId,
    epoch: number,
    request: number,
    operation: number,
    checksum: Buffer,
    origin: Origin,
  ): void {
    this.flightOf(client).requests.set(key(epoch, request), {
      epoch,
      request,
      operation,
      checksum,
      origin,
      admittedAtMs: performance.now(),
    });
  }

  /**
   * Its outcome applied (or it never reached the journal): frees a place in
   * the session's pipeline. Returns what was in flight, if anything.
   */
  settle(client: ClientId, epoch: number, request: number): InFlightRequest<Origin> | undefined {
    const flight = this.flights.get(client);
    if (!flight) return undefined;
    const k = key(epoch, request);
    const settled = flight.requests.get(k);
    flight.requests.delete(k);
    flight.capacityWaiters.shift()?.();
    this.dropIfIdle(client, flight);
    return settled;
  }

  /** Resolves when the session has fewer than `limit` requests in flight. */
  waitForCapacity(client: ClientId, limit: number): Promise<void> {
    const flight = this.flightOf(client);
    if (flight.requests.size < limit) return Promise.resolve();
    return new Promise((resolve) => flight.capacityWaiters.push(resolve));
  }

  /**
   * Runs `work` after the session's earlier serialized work (admissions,
   * releases) reached the journal, so the journal sees them in that order.
   * When nothing is queued it starts at once, in the caller's turn.
   */
  serialize<T>(client: ClientId, work: () => T | Promise<T>): Promise<T> {
    const flight = this.flightOf(client);
    if (!flight.running && flight.serialized.length === 0) {
      return this.runAtOnce(client, flight, work);
    }
    return new Promise<T>((resolve, reject) => {
      flight.serialized.push(async () => {
        try {
          resolve(await work());
        } catch (error) {
          reject(asError(error));
        }
      });
      if (!flight.running) void this.runSerialized(client, flight);
    });
  }

  /**
   * Claims the session's turn now when nothing of it runs or is queued (true),
   * for work the caller runs itself and ends with {@link endTurn} once it
   * settled, on every path; false when work is queued or running: then
   * {@link serialize} it. The same order as {@link serialize}, without its
   * promise: admission of a command that needs no await completes in the
   * turn its frame arrived.
   */
  claimTurn(client: ClientId): boolean {
    const flight = this.flightOf(client);
    if (flight.running || flight.serialized.length > 0) return false;
    flight.running = true;
    return true;
  }

  /** Ends the turn {@link claimTurn} claimed: what queued behind it runs now. */
  endTurn(client: ClientId): void {
    const flight = this.flights.get(client);
    if (flight?.running) this.finishRun(client, flight);
  }

  /**
   * The common case, a session with nothing queued: `work` runs now, and the
   * queue that forms behind it meanwhile runs when it settles. No wrapper
   * closure, outer promise or runner per item (every admitted command comes
   * through here).
   */
  private runAtOnce<T>(
    client: ClientId,
    flight: SessionFlight<Origin>,
    work: () => T | Promise<T>,
  ): Promise<T> {
    flight.running = true;
    let result: T | PromiseLike<T>;
    try {
      result = work();
    } catch (error) {
      this.finishRun(client, flight);
      return Promise.reject(asError(error));
    }
    if (!isPromiseLike(result)) {
      this.finishRun(client, flight);
      return Promise.resolve(result);
    }
    return Promise.resolve(result).then(
      (value) => {
        this.finishRun(client, flight);
        return value;
      },
      (error: unknown) => {
        this.finishRun(client, flight);
        throw asError(error);
      },
    );
  }

  /** The item run at once settled: what queued behind it runs now, else the flight may go. */
  private finishRun(client: ClientId, flight: SessionFlight<Origin>): void {
    if (flight.serialized.length > 0) {
      void this.runSerialized(client, flight);
      return;
    }
    flight.running = false;
    this.dropIfIdle(client, flight);
  }

  private async runSerialized(client: ClientId, flight: SessionFlight<Origin>): Promise<void> {
    flight.running = true;
    try {
      for (let work = flight.serialized.shift(); work; work = flight.serialized.shift()) {
        const pending = work();
        if (pending) await pending;
      }
    } finally {
      flight.running = false;
      this.dropIfIdle(client, flight);
    }
  }

  private flightOf(client: ClientId): SessionFlight<Origin> {
    let flight = this.flights.get(client);
    if (!flight) this.flights.set(client, (flight = new SessionFlight()));
    return flight;
  }

  private dropIfIdle(client: ClientId, flight: SessionFlight<Origin>): void {
    if (
      flight.requests.size === 0 &&
      flight.capacityWaiters.length === 0 &&
      !flight.running &&
      flight.serialized.length === 0 &&
      this.flights.get(client) === flight
    ) {
      this.flights.delete(client);
    }
  }

  /** Every request in flight, across sessions (for answering them when the node fails). */
  *all(): IterableIterator<[ClientId, InFlightRequest<Origin>]> {
    for (const [client, flight] of this.flights) {
      for (const inFlight of flight.requests.values()) yield [client, inFlight];
    }
  }

  /** Requests in flight over every session (one step per session with a flight). */
  get requestCount(): number {
    let count = 0;
    for (const flight of this.flights.values()) count += flight.requests.size;
    return count;
  }

  /** Forgets every request in flight (the journal failed: none of them will commit). */
  clear(): void {
    for (const flight of this.flights.values()) {
      flight.requests.clear();
      for (const wake of flight.capacityWaiters.splice(0)) wake();
    }
  }
}
