import { EntryKind, InvalidEntryError } from '@once/journal';
import { type EntryDraft, type Journal } from '@once/journal/internal';
import { type ApplyOutcome } from './apply-outcome';
import { type Applier } from './applier';
import { describeManifestChange, encodeManifest, sameManifest } from './code-manifest';
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

/**
 * When this code's manifest is journaled (see {@link settleManifest}):
 * `auto`, at boot; `hold`, not (the versions in force stay, so older code
 * can still apply the journal: a rollback stays possible; with no manifest
 * in force yet, no REPLY_CHECK is journaled either, which a build from
 * before manifests could not read); `none`, never here (a cluster's leader
 * settles it itself).
 */
export type UpgradeFinalization = 'auto' | 'hold' | 'none';

export interface BootSettlementOptions {
  /** Default `auto`. */
  readonly upgradeFinalization?: UpgradeFinalization;
}

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
  options: BootSettlementOptions = {},
): Promise<void> {
  const { applier } = engine;
  // Read before the MANIFEST entry below takes op 1 of a new directory.
  const isNew = applier.commitOp === 0;
  const finalization = options.upgradeFinalization ?? 'auto';
  if (finalization !== 'none') await settleManifest(engine, logger, finalization);
  const settings = validateSettings(desired);
  const inForce = applier.settings;
  const changed = !sameSettings(settings, inForce);
  const holders = applier.states.holders().length;
  if (changed || isNew || holders > 0) {
    const reasons: string[] = [];
    if (isNew) reasons.push('new data directory');
    else if (changed) {
      reasons.push(
        `limits changed from clientsMax ${inForce.clientsMax}, ring ${inForce.ring}, sessionTtlMs ${inForce.sessionTtlMs}, httpKeyRetentionMs ${inForce.httpKeyRetentionMs}, httpKeysMax ${inForce.httpKeysMax}`,
      );
    }
    if (holders > 0) reasons.push(`releasing what ${holders} disconnected clients held`);
    const draft = systemDraft(EntryKind.Boot, encodeSettings(settings));
    const outcome = await journalAndWait(engine, draft, 'the BOOT entry');
    const op = outcome.entry.op;
    logger.log(
      new LogEvent(
        'boot-entry',
        `boot: journaled BOOT at op ${op} (${reasons.join('; ')}; limits clientsMax ${settings.clientsMax}, ring ${settings.ring}, sessionTtlMs ${settings.sessionTtlMs}, httpKeyRetentionMs ${settings.httpKeyRetentionMs}, httpKeysMax ${settings.httpKeysMax})`,
        {
          op,
          reason: reasons.join('; '),
          clientsMax: settings.clientsMax,
          ring: settings.ring,
          sessionTtlMs: settings.sessionTtlMs,
          httpKeyRetentionMs: settings.httpKeyRetentionMs,
          httpKeysMax: settings.httpKeysMax,
        },
      ),
    );
  }
  await recordSettings(engine.journal, applier);
}

/**
 * Journals a MANIFEST entry when this code differs from the code in force
 * (its states, their versions, its commands), or when none is in force yet:
 * every entry after it applies under this code's versions, on every node
 * and every replay. Resolves once it applied (at once when none was
 * needed).
 *
 * A cluster's leader decides first whether every node can apply it (see
 * `@once/cluster`); a single node is the only node.
 */
export async function settleManifest(
  engine: SettlingEngine,
  logger: EngineLogger,
  finalization: 'auto' | 'hold' = 'auto',
): Promise<void> {
  const { applier } = engine;
  const code = applier.codeManifest;
  const inForce = applier.manifest;
  if (inForce && sameManifest(code, inForce)) return;
  const change = describeManifestChange(inForce, code);
  if (finalization === 'hold') {
    logger.log(
      new LogEvent(
        'manifest-held',
        `boot: this code differs from the code in force (${change}); held by the upgrade finalization setting: entries go on applying under the versions in force`,
        { change },
      ),
    );
    return;
  }
  const draft = systemDraft(EntryKind.Manifest, encodeManifest(code));
  const outcome = await journalAndWait(engine, draft, 'the MANIFEST entry');
  const op = outcome.entry.op;
  logger.log(
    new LogEvent('manifest-entry', `boot: journaled MANIFEST at op ${op} (${change})`, {
      op,
      change,
      versions: [...code.states].map(([name, version]) => `${name}@${version}`).join(','),
    }),
  );
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
