import { setting, settingDefaults } from '@once/settings';

/**
 * Limits that shape the client table. They are part of history: the values in
 * force are journaled (a BOOT entry) whenever they change, so a replay applies
 * each entry under the limits that held when it was first applied.
 */
export interface EngineSettings {
  /** Table capacity: sessions kept at once before the oldest is evicted. */
  readonly clientsMax: number;
  /** Replies cached per session, and requests a session may have in flight. */
  readonly ring: number;
  /** Sessions idle longer than this (by journal time) expire; 0 = never. */
  readonly sessionTtlMs: number;
  /**
   * Idempotency-Keys of HTTP requests older than this (by journal time) are
   * forgotten (see `HttpKeyTable`). Default 86 400 000 (24 h); a BOOT body
   * or a snapshot written before it existed reads as the default.
   */
  readonly httpKeyRetentionMs: number;
  /**
   * Idempotency-Keys kept at once; a new key beyond it forgets the oldest
   * first (an early forget). Default 1 000 000; absent from older bodies: the default.
   */
  readonly httpKeysMax: number;
}

/**
 * The limits a journal starts with, before its first BOOT entry applies: the
 * settings table's defaults. Changing one there changes how an old journal
 * replays up to its first BOOT entry, so they must never change.
 */
export const GENESIS_SETTINGS: EngineSettings = settingDefaults([
  'clientsMax',
  'ring',
  'sessionTtlMs',
  'httpKeyRetentionMs',
  'httpKeysMax',
]);

export class InvalidSettingsError extends Error {
  readonly code = 'INVALID_SETTINGS';
}

/**
 * Validates and normalises settings (integers, in range), or throws
 * InvalidSettingsError. A setting added after the first release
 * (`httpKeyRetentionMs`, `httpKeysMax`) may be missing, as in the BOOT
 * bodies and snapshots written before it: it reads as its genesis value,
 * which is the value those journals were applied under.
 */
export function validateSettings(settings: Partial<EngineSettings>): EngineSettings {
  const { clientsMax, ring, sessionTtlMs } = settings as EngineSettings;
  const httpKeyRetentionMs = settings.httpKeyRetentionMs ?? GENESIS_SETTINGS.httpKeyRetentionMs;
  const httpKeysMax = settings.httpKeysMax ?? GENESIS_SETTINGS.httpKeysMax;
  if (!Number.isSafeInteger(clientsMax) || clientsMax < 1) {
    throw new InvalidSettingsError(`clientsMax must be an integer >= 1, got ${clientsMax}`);
  }
  const { min: ringMin, max: ringMax } = setting('ring');
  if (!Number.isSafeInteger(ring) || ring < ringMin! || ring > ringMax!) {
    throw new InvalidSettingsError(
      `ring must be an integer from ${ringMin} to ${ringMax}, got ${ring}`,
    );
  }
  if (!Number.isSafeInteger(sessionTtlMs) || sessionTtlMs < 0) {
    throw new InvalidSettingsError(`sessionTtlMs must be an integer >= 0, got ${sessionTtlMs}`);
  }
  const retention = setting('httpKeyRetentionMs');
  if (
    !Number.isSafeInteger(httpKeyRetentionMs) ||
    httpKeyRetentionMs < retention.min! ||
    httpKeyRetentionMs > retention.max!
  ) {
    throw new InvalidSettingsError(
      `httpKeyRetentionMs must be an integer >= ${retention.min}, got ${httpKeyRetentionMs}`,
    );
  }
  const keys = setting('httpKeysMax');
  if (!Number.isSafeInteger(httpKeysMax) || httpKeysMax < keys.min! || httpKeysMax > keys.max!) {
    throw new InvalidSettingsError(
      `httpKeysMax must be an integer from ${keys.min} to ${keys.max}, got ${httpKeysMax}`,
    );
  }
  return { clientsMax, ring, sessionTtlMs, httpKeyRetentionMs, httpKeysMax };
}

export function sameSettings(a: EngineSettings, b: EngineSettings): boolean {
  return (
    a.clientsMax === b.clientsMax &&
    a.ring === b.ring &&
    a.sessionTtlMs === b.sessionTtlMs &&
    a.httpKeyRetentionMs === b.httpKeyRetentionMs &&
    a.httpKeysMax === b.httpKeysMax
  );
}

/** The body of a BOOT entry: the settings it puts in force, as JSON. */
export function encodeSettings(settings: EngineSettings): Buffer {
  return Buffer.from(JSON.stringify(settings));
}

/** Reads a BOOT entry's body; undefined when it is not valid settings (the entry then changes no limit). */
export function decodeSettings(body: Buffer): EngineSettings | undefined {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    return validateSettings(parsed);
  } catch {
    return undefined;
  }
}
