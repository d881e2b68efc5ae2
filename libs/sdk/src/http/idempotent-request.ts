import { setTimeout as pause } from 'node:timers/promises';
import { Backoff } from '../backoff';
import { HttpOutcomeUnknownError } from '../errors/http-outcome-unknown.error';
import { InvalidOptionsError } from '../errors/invalid-options.error';
import { attemptVerdict } from './attempt-verdict';
import {
  IDEMPOTENCY_KEY_HEADER,
  idempotencyKeyHeaderValue,
  isIdempotencyKeySendable,
  newIdempotencyKey,
} from './idempotency-key';
import { type IdempotentRequestInit } from './idempotent-request-init';
import { type IdempotentRequestOptions } from './idempotent-request-options';
import {
  idempotentRequestSettings,
  type IdempotentRequestSettings,
} from './idempotent-request-settings';
import { type IdempotentResponse } from './idempotent-response';
import { leaderRedirect, ONCE_LEADER_HEADER } from './leader-redirect';
import { retryAfterMs } from './retry-after';

/** The response header that tells a replay of the first response from a first application. */
const REPLAYED_HEADER = 'idempotent-replayed';

/** Relative jitter of the delays between attempts: each lies within ±50 % of its base. */
const JITTER = 0.5;

/** What one attempt came to: an answer (any status), or none (network failure, attempt timeout). */
type AttemptOutcome =
  | { readonly kind: 'answer'; readonly response: Response; readonly body: string }
  | { readonly kind: 'failure'; readonly cause: unknown };

/**
 * Sends one logical operation to an idempotent HTTP endpoint over the global
 * `fetch`, under ONE `Idempotency-Key` for all its attempts, and retries it
 * until a final answer: the server applies it at most once however many
 * attempts reach it, and a retry of an attempt that was applied gets the first
 * response again (`replayed: true`).
 *
 * Retried, after an exponential backoff with jitter (`delayMs` doubling up to
 * `delayMsMax`): network failures and attempts past `timeoutMs`; 409 (the same
 * key is being applied now), 429, 502, 503, 504, waiting at least their
 * `Retry-After` (up to `delayMsMax`). A 503 whose `Once-Leader` names an
 * address `leaderUrl` resolves is retried there, at once unless the attempt
 * before also followed a hint (then after the wait). Returned, not
 * retried: every other status, refusals included (400, 422, 500, ...): the
 * server decided, and would answer the same again.
 *
 * @param url - The endpoint.
 * @param init - The operation: method (default POST), headers, body, and `key`
 *   to continue an operation that already has one.
 * @param options - The retry policy; see {@link IdempotentRequestOptions}.
 * @returns The final answer; its `attempts` and `key` say how it was reached.
 * @throws {@link HttpOutcomeUnknownError} when `attemptsMax` attempts got no
 *   final answer (retry later with its `key`); {@link InvalidOptionsError} for
 *   an unusable option, key or header; the signal's reason when `init.signal`
 *   aborts.
 */
export async function idempotentRequest(
  url: string | URL,
  init: IdempotentRequestInit = {},
  options: IdempotentRequestOptions = {},
): Promise<IdempotentResponse> {
  const settings = idempotentRequestSettings(options);
  const key = init.key ?? newIdempotencyKey();
  if (!isIdempotencyKeySendable(key)) {
    throw new InvalidOptionsError('key must be non-empty printable ASCII (an sf-string)');
  }
  const method = (init.method ?? 'POST').toUpperCase();
  if ((method === 'GET' || method === 'HEAD') && init.body !== undefined) {
    // fetch would refuse it at every attempt, which would read as network failures.
    throw new InvalidOptionsError(`a ${method} request has no body`);
  }
  const { headers, body } = requestContent(init, key);
  const backoff = new Backoff({
    initialDelayMs: settings.delayMs,
    delayMsMax: settings.delayMsMax,
    factor: 2,
    jitter: JITTER,
  });
  const signal = init.signal;
  const original = new URL(url);
  let target = original;
  let followedHint = false;
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    const outcome = await attemptOnce(target, method, headers, body, settings.timeoutMs, signal);
    if (outcome.kind === 'answer' && attemptVerdict(outcome.response.status) === 'final') {
      return answer(outcome.response, outcome.body, attempt, key, target);
    }
    if (attempt >= settings.attemptsMax) {
      throw new HttpOutcomeUnknownError(
        key,
        attempt,
        outcome.kind === 'answer' ? outcome.response.status : undefined,
        target.href,
        outcome.kind === 'failure' ? { cause: outcome.cause } : undefined,
      );
    }
    const next = nextAttempt(outcome, backoff.delay(attempt), {
      original,
      target,
      followedHint,
      settings,
    });
    ({ target, followedHint } = next);
    await wait(next.delayMs, signal);
  }
}

/** Where the last attempt went, and whether it followed a leader hint without waiting. */
interface AttemptPlace {
  readonly original: URL;
  readonly target: URL;
  readonly followedHint: boolean;
  readonly settings: IdempotentRequestSettings;
}

/**
 * Where the next attempt goes and after how long, once `outcome` was not
 * final: after a failure, back to the URL the caller gave (a leader named
 * earlier may be the node that is gone; the caller's address is often a load
 * balancer); after a 503 naming a leader `leaderUrl` resolves, there, at once
 * unless the last attempt already followed a hint at once (nodes that name
 * each other, a stale view during an election, cannot make it spin); else
 * the same place after the backoff's `delayMs`, or the `Retry-After` asked
 * for when longer (up to `delayMsMax`).
 */
function nextAttempt(
  outcome: AttemptOutcome,
  delayMs: number,
  place: AttemptPlace,
): { target: URL; delayMs: number; followedHint: boolean } {
  const { original, settings } = place;
  if (outcome.kind === 'failure') return { target: original, delayMs, followedHint: false };
  const { headers, status } = outcome.response;
  const leader =
    status === 503
      ? leaderRedirect(headers.get(ONCE_LEADER_HEADER), settings.leaderUrl, original, place.target)
      : undefined;
  if (leader !== undefined && !place.followedHint) {
    return { target: leader, delayMs: 0, followedHint: true };
  }
  const asked = retryAfterMs(headers.get('retry-after'));
  const delay =
    asked === undefined ? delayMs : Math.min(settings.delayMsMax, Math.max(delayMs, asked));
  return { target: leader ?? place.target, delayMs: delay, followedHint: false };
}

/** The headers and body every attempt sends: the caller's, the key, and a JSON body's content type. */
function requestContent(
  init: IdempotentRequestInit,
  key: string,
): { headers: Headers; body: string | Uint8Array | undefined } {
  const headers = new Headers(init.headers);
  if (headers.has(IDEMPOTENCY_KEY_HEADER)) {
    throw new InvalidOptionsError(
      'headers must not carry Idempotency-Key: pass the key as `key`, so that it is sent as an sf-string on every attempt',
    );
  }
  headers.set(IDEMPOTENCY_KEY_HEADER, idempotencyKeyHeaderValue(key));
  const given = init.body;
  if (given === undefined || typeof given === 'string' || given instanceof Uint8Array) {
    return { headers, body: given };
  }
  if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  return { headers, body: JSON.stringify(given) };
}

/**
 * One attempt under its own timeout, the body read in full under the same
 * signal (an answer is only an answer once its body has arrived). A failure
 * is returned, not thrown, unless the caller aborted.
 */
async function attemptOnce(
  target: URL,
  method: string,
  headers: Headers,
  body: string | Uint8Array | undefined,
  timeoutMs: number,
  callerSignal: AbortSignal | undefined,
): Promise<AttemptOutcome> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = callerSignal === undefined ? timeout : AbortSignal.any([callerSignal, timeout]);
  try {
    const response = await fetch(target, { method, headers, body, signal });
    return { kind: 'answer', response, body: await response.text() };
  } catch (cause) {
    if (callerSignal?.aborted) throw callerSignal.reason;
    return { kind: 'failure', cause };
  }
}

/** Waits `ms` between attempts; the caller's abort ends the wait with its reason. */
async function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0) return;
  try {
    await pause(ms, undefined, { signal });
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw error;
  }
}

/** The final answer as returned to the caller. */
function answer(
  response: Response,
  body: string,
  attempts: number,
  key: string,
  target: URL,
): IdempotentResponse {
  const replayed = (response.headers.get(REPLAYED_HEADER) ?? '').trim().toLowerCase();
  return {
    status: response.status,
    headers: response.headers,
    body,
    replayed: replayed === 'true' || replayed === '?1',
    attempts,
    key,
    url: target.href,
  };
}
