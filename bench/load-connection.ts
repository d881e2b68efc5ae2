/**
 * One connection of a load generator, whatever its protocol. The drivers
 * (closed loop, open loop) only ever ask for "`count` more requests", so a
 * connection can write them with one socket write.
 */
export interface LoadConnection {
  /** Writes `count` more requests at once. */
  send(count: number): void;
  /** Requests written and not answered yet. */
  readonly inFlight: number;
  /**
   * Called once per chunk read from the socket with the number of requests
   * that chunk answered (only when it answered some).
   */
  onAnswered: (count: number) => void;
  close(): void;
}

/**
 * Send times by request number, for latency. A ring: a connection never has
 * this many requests in flight (the once service stops reading a session past
 * its ring of 8; the bench caps the depth at 1024).
 */
export const SENT_AT_RING_SIZE = 1 << 16;
export const SENT_AT_RING_MASK = SENT_AT_RING_SIZE - 1;
