import { EntryKind, type EntryDraft, InvalidEntryError, type Journal } from '@once/journal';
import { type ApplyOutcome } from './apply-outcome';
import { type Applier } from './applier';
import { type EngineLogger } from './engine-logger';
import {
  type EngineSettings,
  encodeSettings,
  sameSettings,
  validateSettings,
} from './engine-settings';
import { EngineUnavailableError } from './engine-unavailable.error';
import { LogEvent } from './log-event';
import { type FailureCallback, type OutcomeCallback } from './pending-submissions';
import { systemDraft } from './system-draft';

/** What settling boot needs of the live engine: its journal, its applier, its submit. */
export interface SettlingEngine {
  readonly journal: Journal;
  readonly applier: Applier;
  submit(draft: EntryDraft, onOutcome?: OutcomeCallback, onFailed?: FailureCallback): number;
}

/**
 * Journals `draft` and resolves with its outcome once it applied. Rejects,
 * naming `what` and keeping the journal's error as `cause`, when the journal
 * refuses it or fails before it is durable: boot awaits this, and must fail
 * (so the service exits with the reason) rather than wait forever.
 */
export function journalAndWait(
  engine: Pick<SettlingEngine, 'submit'>,
  draft: EntryDraft,
  what: string,
): Promise<ApplyOutcome> {
  return new Promise<ApplyOutcome>((resolve, reject) => {
    const fail = (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      const reason = `${what} could not be journaled: ${message}`;
      reject(new EngineUnavailableError(reason, { cause: error }));
    };
    try {
      engine.submit(draft, resolve, fail);
    } catch (error) {
      if (error instanceof InvalidEntryError) reject(error);
      else fail(error);
    }
  });
}

/**
 * Journals a BOOT entry when the configured limits differ from those in
 * force, on a new journal, or when connection-scoped holdings survived the
 * restart (no connection did); then mirrors the limits into the journal's
 * settings record. Limits change only through this journaled entry, so a
 * replay applies each entry under the limits that held when it first applied.
 */
export async function settleBootFor(
  engine: SettlingEngine,
  desired: EngineSettings,
  logger: EngineLogger,
): Promise<void> {
  const settings = validateSettings(desired);
  const { applier } = engine;
  const inForce = applier.settings;
  const changed = !sameSettings(settings, inForce);
  const holders = applier.states.holders().length;
  if (changed || applier.commitOp === 0 || holders > 0) {
    const reasons: string[] = [];
    if (applier.commitOp === 0) reasons.push('new data directory');
    else if (changed) {
      reasons.push(
        `limits changed from clientsMax ${inForce.clientsMax}, ring ${inForce.ring}, sessionTtlMs ${inForce.sessionTtlMs}`,
      );
    }
    if (holders > 0) reasons.push(`releasing what ${holders} disconnected clients held`);
    const draft = systemDraft(EntryKind.Boot, encodeSettings(settings));
    const outcome = await journalAndWait(engine, draft, 'the BOOT entry');
    const op = outcome.entry.op;
    logger.log(
      new LogEvent(
        'boot-entry',
        `boot: journaled BOOT at op ${op} (${reasons.join('; ')}; limits clientsMax ${settings.clientsMax}, ring ${settings.ring}, sessionTtlMs ${settings.sessionTtlMs})`,
        {
          op,
          reason: reasons.join('; '),
          clientsMax: settings.clientsMax,
          ring: settings.ring,
          sessionTtlMs: settings.sessionTtlMs,
        },
      ),
    );
  }
  await recordSettings(engine.journal, applier);
}

/**
 * Mirrors the limits in force into the journal's settings record, for
 * operators and tools; the journal's BOOT entries stay the authority.
 */
async function recordSettings(journal: Journal, applier: Applier): Promise<void> {
  const inForce = applier.settings;
  const recorded = journal.settings as EngineSettings | null;
  if (recorded && sameSettings(recorded, inForce)) return;
  await journal.updateSettings({ ...inForce, sinceOp: applier.commitOp });
}
