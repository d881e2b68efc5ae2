import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';

/**
 * True when JetStream refused a write because the key's last revision was
 * not the one the write expected (`wrong last sequence`): another node wrote
 * the key first, or the write it expected expired. A definite answer, unlike
 * a timeout, after which the write may or may not have happened.
 */
export function isRevisionRefusal(error: unknown): boolean {
  return (
    error instanceof JetStreamApiError &&
    (error.code === JetStreamApiCodes.StreamWrongLastSequence ||
      error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/** A failure as one log line: its message, or what it is when it has none. */
export function describeFailure(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
