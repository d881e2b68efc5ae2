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
]);

export class InvalidSettingsError extends Error {
  readonly code = 'INVALID_SETTINGS';
}

/** Validates and normalises settings (integers, in range), or throws InvalidSettingsError. */
export function validateSettings(settings: EngineSettings): EngineSettings {
  const { clientsMax, ring, sessionTtlMs } = settings;
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
  return { clientsMax, ring, sessionTtlMs };
}

export function sameSettings(a: EngineSettings, b: EngineSettings): boolean {
  return a.clientsMax === b.clientsMax && a.ring === b.ring && a.sessionTtlMs === b.sessionTtlMs;
}

/** The body of a BOOT entry: the settings it puts in force, as JSON. */
export function encodeSettings(settings: EngineSettings): Buffer {
  return Buffer.from(JSON.stringify(settings));
}

/** Reads a BOOT entry's body; undefined when it is not valid settings (the entry then changes no limit). */
export function decodeSettings(body: Buffer): EngineSettings | undefined {
  try {
    return validateSettings(JSON.parse(body.toString('utf8')) as EngineSettings);
  } catch {
    return undefined;
  }
}
