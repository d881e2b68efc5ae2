import fc from 'fast-check';
import { EntryKind } from '@once/journal';
import { type EntryDraft, type JournalEntry } from '@once/journal/internal';
import { ZERO_CHECKSUM, ZERO_CLIENT_ID, clientIdFromBigInt } from '@once/protocol/internal';
import { Applier } from './applier';
import { type ApplyContext } from './apply-context';
import { type CodeManifest, encodeManifest } from './code-manifest';
import { type CommandHandler } from './command-handler';
import { CommandRegistry } from './command-registry';
import { type ModuleState } from './module-state';
import { NondeterministicApplyError } from './nondeterministic-apply.error';
import { StateRegistry } from './state-registry';
import { commandDraft, registerDraft } from './__fixtures__/entry-drafts.fixture';

const ALICE = clientIdFromBigInt(0xa11cen);
const SECRET = Buffer.alloc(32, 7);
const START_NS = 1_700_000_000_000_000_000n;
/** The newest version the code under test provides. */
const CODE_VERSION = 3;

/** An account whose deposit rule changed twice: a fee of 1 from version 2, of 2 from version 3. */
class AccountState implements ModuleState {
  balance = 0;
  toSnapshot(): unknown {
    return { balance: this.balance };
  }
  fromSnapshot(snapshot: unknown): void {
    this.balance = (snapshot as { balance: number }).balance;
  }
}

type FeeRule = (ctx: ApplyContext) => number;

/** The rule as the team wrote it: the old fee for entries journaled under older versions. */
const versionedFee: FeeRule = (ctx) => (ctx.version >= 3 ? 2 : ctx.version >= 2 ? 1 : 0);
/** The same code with version 2's fee changed in place, without a bump. */
const editedFee: FeeRule = (ctx) => (ctx.version >= 3 ? 2 : ctx.version >= 2 ? 3 : 0);

function code(fee: FeeRule): { applier: Applier; account: AccountState } {
  const account = new AccountState();
  const deposit: CommandHandler = {
    pattern: 'account.deposit',
    state: 'account',
    apply(data, ctx) {
      const { amount } = data as { amount: number };
      account.balance += amount - fee(ctx);
      return { balance: account.balance, version: ctx.version };
    },
  };
  const applier = new Applier({
    commands: new CommandRegistry([deposit]),
    states: new StateRegistry([['account', account, CODE_VERSION]]),
    nodeSecret: SECRET,
  });
  return { applier, account };
}

type Step =
  | { readonly kind: 'deposit'; readonly amount: number }
  | { readonly kind: 'bump' }
  | { readonly kind: 'check' }
  | { readonly kind: 'snapshot' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .integer({ min: 1, max: 50 })
      .map((amount) => ({ kind: 'deposit' as const, amount })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'bump' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'check' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'snapshot' as const }) },
);

function manifest(version: number): CodeManifest {
  return {
    states: new Map([['account', version]]),
    commands: new Set(['account.deposit']),
    owners: new Map([['account.deposit', 'account']]),
  };
}

function systemDraft(kind: EntryKind, body: Buffer): EntryDraft {
  return {
    kind,
    client: ZERO_CLIENT_ID,
    session: 0,
    request: 0,
    userId: 0,
    requestChecksum: ZERO_CHECKSUM,
    body,
  };
}

interface LiveRun {
  readonly entries: JournalEntry[];
  /** Reply frames by op, as the live node sent them. */
  readonly replies: Map<number, Buffer>;
  readonly finalSnapshot: Buffer;
  /** Snapshots taken along the way, by op. */
  readonly snapshots: Map<number, Buffer>;
}

/**
 * Applies a history live, the way the engine does: a MANIFEST at op 1, the
 * session's REGISTER, the steps (a bump journals a MANIFEST one version up,
 * a check journals a REPLY_CHECK of the replies since the last one), and a
 * last REPLY_CHECK covering the rest.
 */
function runLive(steps: readonly Step[]): LiveRun {
  const { applier } = code(versionedFee);
  const entries: JournalEntry[] = [];
  const replies = new Map<number, Buffer>();
  const snapshots = new Map<number, Buffer>();
  const append = (draft: EntryDraft) => {
    const entry = {
      ...draft,
      op: applier.commitOp + 1,
      timestamp: START_NS + BigInt(applier.commitOp),
    };
    entries.push(entry);
    const outcome = applier.apply(entry);
    if (outcome.reply) replies.set(entry.op, outcome.reply);
    return outcome;
  };
  const check = () => {
    const body = applier.unchecked.encodeNew();
    if (body) append(systemDraft(EntryKind.ReplyCheck, body));
  };
  let version = 1;
  append(systemDraft(EntryKind.Manifest, encodeManifest(manifest(version))));
  const epoch = append(registerDraft(ALICE, 1)).registered!.epoch;
  let request = 0;
  for (const next of steps) {
    if (next.kind === 'deposit') {
      request++;
      append(commandDraft(ALICE, 1, epoch, request, 'account.deposit', { amount: next.amount }));
    } else if (next.kind === 'bump' && version < CODE_VERSION) {
      version++;
      append(systemDraft(EntryKind.Manifest, encodeManifest(manifest(version))));
    } else if (next.kind === 'check') {
      check();
    } else if (next.kind === 'snapshot') {
      snapshots.set(applier.commitOp, applier.captureSnapshot());
    }
  }
  check();
  return { entries, replies, finalSnapshot: applier.captureSnapshot(), snapshots };
}

/** Every entry with the reply checks emptied: applies the same ops and checks nothing. */
function withoutChecks(entries: readonly JournalEntry[]): JournalEntry[] {
  return entries.map((entry) =>
    entry.kind === EntryKind.ReplyCheck ? { ...entry, body: Buffer.alloc(4) } : entry,
  );
}

describe('code versions and reply checks (property)', () => {
  it('given a random history with version changes at random ops, when it is replayed from op 1 or from any snapshot, then state and cached replies are byte-identical', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const live = runLive(steps);

        const replayed = code(versionedFee).applier;
        replayed.setDeferredReplies(true);
        for (const entry of live.entries) replayed.apply(entry);
        replayed.setDeferredReplies(false);
        expect(replayed.captureSnapshot().equals(live.finalSnapshot)).toBe(true);

        for (const [op, snapshot] of live.snapshots) {
          const restored = code(versionedFee).applier;
          expect(restored.restoreSnapshot(snapshot)).toBe(op);
          for (const entry of live.entries.slice(op)) restored.apply(entry);
          expect(restored.captureSnapshot().equals(live.finalSnapshot)).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('given the same history replayed by code whose version-2 rule changed without a bump, then it stops at exactly the first op whose reply differs', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const live = runLive(steps);

        // Where the edited code first answers otherwise, found without checks.
        const unchecked = code(editedFee).applier;
        let firstDifferent: number | undefined;
        for (const entry of withoutChecks(live.entries)) {
          const outcome = unchecked.apply(entry);
          const first = live.replies.get(entry.op);
          if (
            firstDifferent === undefined &&
            first &&
            outcome.reply &&
            !outcome.reply.equals(first)
          ) {
            firstDifferent = entry.op;
          }
        }

        const checked = code(editedFee).applier;
        checked.setDeferredReplies(true);
        let stoppedAt: number | undefined;
        let applied = 0;
        try {
          for (const entry of live.entries) {
            checked.apply(entry);
            applied = entry.op;
          }
        } catch (error) {
          expect(error).toBeInstanceOf(NondeterministicApplyError);
          const difference = (error as NondeterministicApplyError).difference;
          stoppedAt = difference.op;
          expect(difference).toMatchObject({ pattern: 'account.deposit', state: 'account' });
          expect(difference.versions).toEqual({ account: 2 });
          // It stops at the REPLY_CHECK that recorded the first reply, applying nothing after.
          expect(applied).toBe(difference.checkOp - 1);
        }
        expect(stoppedAt).toBe(firstDifferent);
      }),
      { numRuns: 150 },
    );
  });

  it('given entries journaled under version 1, when newer code replays them, then each is applied under the version in force at its op', () => {
    const live = runLive([
      { kind: 'deposit', amount: 10 },
      { kind: 'bump' },
      { kind: 'deposit', amount: 10 },
      { kind: 'bump' },
      { kind: 'deposit', amount: 10 },
    ]);
    const bodies = [...live.replies.values()]
      .map((reply) => JSON.parse(reply.subarray(128).toString('utf8')) as { result?: unknown })
      .filter(
        (body) =>
          body.result !== undefined && (body.result as { balance?: number }).balance !== undefined,
      );
    expect(bodies.map((body) => body.result)).toEqual([
      { balance: 10, version: 1 },
      { balance: 19, version: 2 },
      { balance: 27, version: 3 },
    ]);
  });
});
