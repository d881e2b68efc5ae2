import { type ClientId, Command, type Frame, Status } from '@once/protocol';
import { type RawClient, type Registration, outcomeOf, registrationOf } from '@once/testing';

import { ADMIN_PASSWORD } from './wire';
export { ADMIN_PASSWORD, startService } from './wire';

/** What a client keeps of its session: enough to resume it on any connection. */
export interface Session extends Registration {
  readonly client: ClientId;
}

/** REGISTERs `client` and expects OK; returns the reply frame and the session it opened. */
export async function registerOk(
  raw: RawClient,
  client: ClientId,
  username = 'admin',
  password = ADMIN_PASSWORD,
): Promise<{ frame: Frame; session: Session }> {
  const frame = await raw.register(client, username, password);
  expect(frame.header).toMatchObject({ command: Command.Reply, status: Status.Ok, client });
  return { frame, session: { client, ...registrationOf(frame) } };
}

/**
 * Sends a COMMAND under `session` (with its resume token, so it also works on
 * an unbound connection) and expects a committed REPLY with an `ok` outcome.
 */
export async function commandOk(
  raw: RawClient,
  session: Session,
  request: number,
  pattern: string,
  data: unknown,
): Promise<Frame> {
  const frame = await raw.command(
    session.client,
    session.epoch,
    request,
    pattern,
    data,
    session.resumeToken,
  );
  expect(frame.header).toMatchObject({
    command: Command.Reply,
    status: Status.Ok,
    client: session.client,
    request,
    watermark: request,
  });
  const outcome = outcomeOf(frame);
  if (!outcome.ok) throw new Error(`${pattern} was refused: ${JSON.stringify(outcome.error)}`);
  return frame;
}

/** A QUERY on a bound connection; returns its `result` (fails on a refusal). */
export async function queryResult(
  raw: RawClient,
  session: Session,
  pattern: string,
  data: unknown,
): Promise<unknown> {
  const frame = await raw.query(session.client, session.epoch, pattern, data);
  expect(frame.header).toMatchObject({ command: Command.Reply, status: Status.Ok });
  const outcome = outcomeOf(frame);
  if (!outcome.ok) throw new Error(`${pattern} was refused: ${JSON.stringify(outcome.error)}`);
  return outcome.result;
}

/**
 * Polls `probe` until `accept` holds; returns the accepted value. The bound on
 * attempts only keeps a broken node from hanging the suite; no duration is
 * asserted.
 */
export async function eventually<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  attempts = 400,
): Promise<T> {
  let last: T | undefined;
  for (let attempt = 0; attempt < attempts; attempt++) {
    last = await probe();
    if (accept(last)) return last;
    await new Promise((done) => setTimeout(done, 25));
  }
  throw new Error(`the condition never held; last value: ${JSON.stringify(last)}`);
}

/** A copy of `bytes` with one bit flipped. */
export function flipBit(bytes: Uint8Array, bit = 0): Buffer {
  const copy = Buffer.from(bytes);
  copy[bit >> 3] ^= 1 << (bit & 7);
  return copy;
}
