import { type ClientId } from '@once/protocol';

/** A request admitted to the journal whose outcome has not been applied yet. */
export interface InFlightRequest<Origin> {
  /** `checksum_body` of the request (an own copy, not a view of a socket chunk). */
  readonly checksum: Buffer;
  /** The connection it arrived on (the reply goes to the session's holder when it commits). */
  readonly origin: Origin;
}

class SessionFlight<Origin> {
  highestAdmitted = 0;
  readonly requests = new Map<number, InFlightRequest<Origin>>();
  readonly capacityWaiters: Array<() => void> = [];
  /** Admissions of one session go to the journal in request order, even across connections. */
  tail: Promise<void> = Promise.resolve();
}

/**
 * Per session: the requests admitted but not yet applied. The client table
 * knows only what applied; this is the rest of the preflight ("next expected"
 * is one more than the highest admitted, not the watermark).
 *
 * Invariant: a flight exists only while it has requests in flight or
 * admissions waiting; an idle session costs nothing here.
 */
export class SessionFlights<Origin> {
  private readonly flights = new Map<ClientId, SessionFlight<Origin>>();

  /** Highest request number admitted for `client`, given the table's watermark. */
  highestAdmitted(client: ClientId, watermark: number): number {
    const flight = this.flights.get(client);
    return flight && flight.requests.size > 0
      ? Math.max(flight.highestAdmitted, watermark)
      : watermark;
  }

  inFlight(client: ClientId, request: number): InFlightRequest<Origin> | undefined {
    return this.flights.get(client)?.requests.get(request);
  }

  count(client: ClientId): number {
    return this.flights.get(client)?.requests.size ?? 0;
  }

  /** Marks `request` admitted; from now on a retry of it is "in flight". */
  admit(client: ClientId, request: number, checksum: Buffer, origin: Origin): void {
    const flight = this.flightOf(client);
    flight.requests.set(request, { checksum, origin });
    if (request > flight.highestAdmitted) flight.highestAdmitted = request;
  }

  /** Its outcome applied (or it never reached the journal): frees a place in the session's pipeline. */
  settle(client: ClientId, request: number): void {
    const flight = this.flights.get(client);
    if (!flight) return;
    flight.requests.delete(request);
    flight.capacityWaiters.shift()?.();
    this.dropIfIdle(client, flight);
  }

  /** Resolves when the session has fewer than `limit` requests in flight. */
  waitForCapacity(client: ClientId, limit: number): Promise<void> {
    const flight = this.flightOf(client);
    if (flight.requests.size < limit) return Promise.resolve();
    return new Promise((resolve) => flight.capacityWaiters.push(resolve));
  }

  /** Runs `admission` after the session's previous admissions reached the journal. */
  serialize(client: ClientId, admission: () => Promise<void>): Promise<void> {
    const flight = this.flightOf(client);
    const run = flight.tail.then(admission);
    flight.tail = run.catch(() => undefined);
    return run;
  }

  private flightOf(client: ClientId): SessionFlight<Origin> {
    let flight = this.flights.get(client);
    if (!flight) this.flights.set(client, (flight = new SessionFlight()));
    return flight;
  }

  private dropIfIdle(client: ClientId, flight: SessionFlight<Origin>): void {
    if (flight.requests.size === 0 && flight.capacityWaiters.length === 0)
      this.flights.delete(client);
  }

  get sessionsInFlight(): number {
    return this.flights.size;
  }
}
