import { JetStreamApiError } from '@nats-io/jetstream';
import { RequestError, TimeoutError } from '@nats-io/nats-core';

/** Pause between two tries of a JetStream request that met no leader. */
const RETRY_DELAY_MS = 250;

/**
 * True for the answers a JetStream request gets while a leader is being
 * elected (right after a stream is created, or after a server died): no
 * answer in time, no responders, or "temporarily unavailable" (status 503).
 */
export function isTransient(error: unknown): boolean {
  if (error instanceof TimeoutError) return true;
  if (error instanceof RequestError) return true;
  if (error instanceof JetStreamApiError) return error.status === 503;
  return false;
}

/**
 * Runs `request` until it returns or fails with an error that is not
 * {@link isTransient}, for at most `timeoutMs`; then the last error is
 * thrown. For the few requests made when the journal opens, which a freshly
 * created replicated stream or bucket may not answer yet.
 */
export async function retryTransient<T>(request: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await request();
    } catch (error) {
      if (!isTransient(error) || Date.now() + RETRY_DELAY_MS >= deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
  }
}
