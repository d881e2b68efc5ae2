import {
  type JetStreamManager,
  JetStreamApiError,
  RetentionPolicy,
  type StreamConfig,
  StorageType,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { type ClusterNames } from '../cluster-names';
import { type StreamEnd } from './append-pipeline';
import { type GroupAuthenticator } from './group-authenticator';
import { decodeGroupMessage, messageOps } from './journal-message';
import { JournalStreamMismatchError } from './journal-stream-mismatch.error';

const STREAM_NOT_FOUND = 10059;
/** "stream name already in use with a different configuration". */
const STREAM_NAME_IN_USE = 10058;

/** The journal stream's end, plus the timestamp new entries must not go below. */
export interface JournalStreamEnd extends StreamEnd {
  /** Timestamp of the last entry (0n when the stream is empty). */
  readonly lastTimestamp: bigint;
}

/**
 * Creates the journal stream of `names` unless it exists, then checks that
 * the existing one keeps every message forever and refuses deletes, purges
 * and rollups: the journal's contiguity rests on it.
 *
 * File storage, one subject, limits retention with no limits, deletes and
 * purges denied, `replicas` copies, and a duplicate window of
 * `duplicateWindowMs` (an existing stream may have a longer one, never a
 * shorter one: a group is republished with its message id for that long).
 */
export async function ensureJournalStream(
  jsm: JetStreamManager,
  names: ClusterNames,
  replicas: number,
  duplicateWindowMs: number,
): Promise<void> {
  const config: StreamConfig = {
    name: names.stream,
    description: 'once journal: one message per group of contiguous entries',
    subjects: [names.subject],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    num_replicas: replicas,
    deny_delete: true,
    deny_purge: true,
    allow_rollup_hdrs: false,
    duplicate_window: nanos(duplicateWindowMs),
    max_msgs: -1,
    max_bytes: -1,
    max_age: 0,
    max_msgs_per_subject: -1,
  } as StreamConfig;
  let existing: StreamConfig;
  try {
    existing = (await jsm.streams.info(names.stream)).config;
  } catch (error) {
    if (!hasCode(error, STREAM_NOT_FOUND)) throw error;
    try {
      existing = (await jsm.streams.add(config)).config;
    } catch (addError) {
      // Another node created it first, with other options: judge what is there.
      if (!hasCode(addError, STREAM_NAME_IN_USE)) throw addError;
      existing = (await jsm.streams.info(names.stream)).config;
    }
  }
  const problem = configProblem(existing, names.subject, duplicateWindowMs);
  if (problem !== undefined) throw new JournalStreamMismatchError(names.stream, problem);
}

/** Why `config` cannot hold the journal, or `undefined` when it can. */
function configProblem(
  config: StreamConfig,
  subject: string,
  duplicateWindowMs: number,
): string | undefined {
  if (config.subjects?.length !== 1 || config.subjects[0] !== subject) {
    return `its subjects are ${JSON.stringify(config.subjects)}, not [${JSON.stringify(subject)}]`;
  }
  if (config.storage !== StorageType.File) return `its storage is ${config.storage}, not file`;
  if (config.retention !== RetentionPolicy.Limits) {
    return `its retention is ${config.retention}, not limits`;
  }
  if (!config.deny_delete || !config.deny_purge) return 'it allows deletes or purges';
  if (config.allow_rollup_hdrs) return 'it allows rollups';
  if (config.no_ack) return 'it does not acknowledge publishes';
  const limited = (['max_msgs', 'max_bytes', 'max_age', 'max_msgs_per_subject'] as const).filter(
    (limit) => (config[limit] ?? 0) > 0,
  );
  if (limited.length > 0) return `it drops old messages (${limited.join(', ')})`;
  if ((config.duplicate_window ?? 0) < nanos(duplicateWindowMs)) {
    return `its duplicate window is ${(config.duplicate_window ?? 0) / 1e6} ms, shorter than ${duplicateWindowMs} ms`;
  }
  return undefined;
}

/**
 * The stream's last message, decoded and verified (its MAC too): where a writer continues
 * (the next sequence, the message it follows, the next op) and the timestamp
 * its entries must not go below. Asks the stream leader.
 */
export async function readJournalStreamEnd(
  jsm: JetStreamManager,
  names: ClusterNames,
  auth: GroupAuthenticator,
): Promise<JournalStreamEnd> {
  const last = await jsm.streams.getMessage(names.stream, { last_by_subj: names.subject });
  if (last === null) return { seq: 0, msgId: undefined, lastOp: 0, lastTimestamp: 0n };
  const { entries } = decodeGroupMessage(last.seq, last.data, last.header, auth);
  const tail = entries[entries.length - 1];
  return {
    seq: last.seq,
    msgId: last.header?.get('Nats-Msg-Id') || undefined,
    lastOp: tail.op,
    lastTimestamp: tail.timestamp,
  };
}

/**
 * The last op in the stream now, from the last message's headers: what a
 * follower must have applied before it serves a read that has to see every
 * acknowledged write. 0 when the stream is empty.
 */
export async function readJournalStreamLastOp(
  jsm: JetStreamManager,
  names: ClusterNames,
): Promise<number> {
  const last = await jsm.streams.getMessage(names.stream, { last_by_subj: names.subject });
  return last === null ? 0 : messageOps(last.seq, last.header, 1).lastOp;
}

function hasCode(error: unknown, code: number): boolean {
  return error instanceof JetStreamApiError && error.code === code;
}
