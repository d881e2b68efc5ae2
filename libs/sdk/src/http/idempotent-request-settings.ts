import { InvalidOptionsError } from '../errors/invalid-options.error';
import {
  DEFAULT_IDEMPOTENT_REQUEST_OPTIONS,
  type IdempotentRequestOptions,
  type LeaderUrlResolver,
} from './idempotent-request-options';

/** {@link IdempotentRequestOptions} with the defaults filled in, checked. */
export interface IdempotentRequestSettings {
  readonly attemptsMax: number;
  readonly delayMs: number;
  readonly delayMsMax: number;
  readonly timeoutMs: number;
  readonly leaderUrl: LeaderUrlResolver | undefined;
}

/**
 * Fills in the defaults and refuses an unusable value up front, naming the
 * option: a NaN delay or zero attempts would otherwise show up as a request
 * that is never sent, or retried without pause.
 */
export function idempotentRequestSettings(
  options: IdempotentRequestOptions = {},
): IdempotentRequestSettings {
  const settings = {
    ...DEFAULT_IDEMPOTENT_REQUEST_OPTIONS,
    ...definedOnly(options),
    leaderUrl: options.leaderUrl,
  };
  const { attemptsMax, delayMs, delayMsMax, timeoutMs, leaderUrl } = settings;
  if (!Number.isSafeInteger(attemptsMax) || attemptsMax < 1) {
    throw new InvalidOptionsError(`attemptsMax must be an integer ≥ 1, not ${attemptsMax}`);
  }
  if (!Number.isFinite(delayMs) || delayMs < 0) {
    throw new InvalidOptionsError(`delayMs must be a number of ms ≥ 0, not ${delayMs}`);
  }
  if (!Number.isFinite(delayMsMax) || delayMsMax < delayMs) {
    throw new InvalidOptionsError(
      `delayMsMax must be a number of ms ≥ delayMs (${delayMs}), not ${delayMsMax}`,
    );
  }
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new InvalidOptionsError(`timeoutMs must be a number of ms > 0, not ${timeoutMs}`);
  }
  if (leaderUrl !== undefined && typeof leaderUrl !== 'function' && typeof leaderUrl !== 'object') {
    throw new InvalidOptionsError(
      'leaderUrl must be a map of addresses to base URLs, or a function',
    );
  }
  return { attemptsMax, delayMs, delayMsMax, timeoutMs, leaderUrl };
}

/** The options given with a value: `{ delayMs: undefined }` keeps the default. */
function definedOnly(options: IdempotentRequestOptions): IdempotentRequestOptions {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}
