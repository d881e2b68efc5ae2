import { type MsgHdrs } from '@nats-io/nats-core';
import { type JournalEntry } from '@once/journal/internal';

/**
 * Entries appended together: one JetStream message, one publish, one ack.
 *
 * Its place in the stream is fixed when it is sealed (`seq`, and the message
 * it must directly follow), and its message id and bytes never change after
 * that, so a republish of it is the very same message: JetStream either
 * stores it once or reports the earlier copy as a duplicate.
 */
export interface AppendGroup {
  readonly firstOp: number;
  readonly entries: JournalEntry[];
  /** The entries' encodings, in op order (what the payload concatenates). */
  readonly encoded: Buffer[];
  /** Sum of the encodings' lengths. */
  bytes: number;
  /** Set when sealed: the stream sequence this group must be stored at. */
  seq: number;
  /** Set when sealed: `Nats-Msg-Id`, unique to this writer and group. */
  msgId: string;
  /** Set when sealed: the message id of the message at `seq - 1`, when known. */
  previousMsgId: string | undefined;
  /** Set when sealed: the message as published (and republished). */
  message: { readonly payload: Buffer; readonly headers: MsgHdrs } | undefined;
  /** The stream stored this group at `seq` (acknowledged, or found there). */
  stored: boolean;
  /** The publish attempt in progress or last made; settles, never rejects. */
  attempt: Promise<void> | undefined;
}

/** An empty group starting at `firstOp`. */
export function newAppendGroup(firstOp: number): AppendGroup {
  return {
    firstOp,
    entries: [],
    encoded: [],
    bytes: 0,
    seq: 0,
    msgId: '',
    previousMsgId: undefined,
    message: undefined,
    stored: false,
    attempt: undefined,
  };
}

/** The group's last op. */
export function lastOpOf(group: AppendGroup): number {
  return group.firstOp + group.entries.length - 1;
}
