import { type KV, type KvEntry } from '@nats-io/kv';
import { describeFailure, isRevisionRefusal } from './kv-failures';
import {
  type LeaseHolder,
  type LeaseSeal,
  decodeLeaseValue,
  encodeLeaseValue,
} from './lease-value';

/**
 * The lease key as last read or told by the watch:
 * - `free`: absent (expired, never written) or deleted; `revision` is the
 *   delete's, 0 when absent: what a claim must expect;
 * - `held`: written at `revision` by `holder`; undefined, with the
 *   `problem`, when the value is not one the lease writes or does not verify
 *   under the cluster key: written by something that is no leader.
 */
export type LeaseKeyState =
  | { readonly kind: 'free'; readonly revision: number }
  | {
      readonly kind: 'held';
      readonly revision: number;
      readonly holder: LeaseHolder | undefined;
      readonly problem?: 'unreadable' | 'unverified';
    };

/**
 * How a write of the key ended: `written` at a new revision; `refused`
 * because the key's revision was not the one expected (a definite no);
 * `unanswered` (a timeout, a lost connection), after which the write may
 * or may not have happened.
 */
export type LeaseWrite =
  | { readonly kind: 'written'; readonly revision: number }
  | { readonly kind: 'refused' | 'unanswered'; readonly reason: string };

/** The lease key of a bucket: reads, CAS writes and the release, in the lease's terms. */
export class LeaseKey {
  constructor(
    private readonly kv: KV,
    readonly key: string,
    /** Signs what this node writes, verifies what it reads. */
    readonly seal: LeaseSeal,
  ) {}

  /** Reads the key; throws when the bucket does not answer. */
  async read(): Promise<LeaseKeyState> {
    const entry = await this.kv.get(this.key);
    return entry === null ? { kind: 'free', revision: 0 } : stateOf(entry, this.seal);
  }

  /**
   * Writes `holder` expecting `revision` (0: expecting no value at all):
   * a claim of a free key, a takeover of a key left by this node, or a
   * renewal.
   */
  async write(holder: LeaseHolder, revision: number): Promise<LeaseWrite> {
    const value = encodeLeaseValue(holder, this.seal);
    try {
      const written =
        revision === 0
          ? await this.kv.create(this.key, value)
          : await this.kv.update(this.key, value, revision);
      return { kind: 'written', revision: written };
    } catch (error) {
      const reason = describeFailure(error);
      return isRevisionRefusal(error)
        ? { kind: 'refused', reason }
        : { kind: 'unanswered', reason };
    }
  }

  /** Deletes the key if it is still at `revision`; throws when it is not, or on no answer. */
  async release(revision: number): Promise<void> {
    await this.kv.delete(this.key, { previousSeq: revision });
  }
}

/** What a watched or read entry of the key says. */
export function stateOf(entry: KvEntry, seal: LeaseSeal): LeaseKeyState {
  if (entry.operation !== 'PUT') return { kind: 'free', revision: entry.revision };
  const { holder, problem } = decodeLeaseValue(entry.value, seal);
  return { kind: 'held', revision: entry.revision, holder, problem };
}
