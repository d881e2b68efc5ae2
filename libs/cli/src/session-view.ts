import { type ClientEntry } from '@once/client-table/internal';
import { HEADER_SIZE, decodeHeader } from '@once/protocol/internal';
import { STATUS_NAMES, type Status } from '@once/protocol';
import { redactCredentials } from './redact';
import { isoTimeOf } from './time-format';

/**
 * A session (one row of the client table) as `once sessions list|show`
 * shows it; also their `--json` shape (add fields, never rename one).
 */
export interface SessionView {
  readonly client: string;
  /** The user that owns the session: only that user may resume it. */
  readonly userId: number;
  /** Op of the REGISTER that last bound the session. */
  readonly epoch: number;
  /** Highest applied request number: every request up to it was applied, exactly once. */
  readonly watermark: number;
  /** Op of the session's latest REGISTER or reply (the eviction order). */
  readonly latestCommitOp: number;
  /** Journal time of that op (the expiry order), ISO 8601. */
  readonly latestCommitTime: string;
  /** The ring: the cached replies, oldest first, by request number with the reply frame's size. */
  readonly replies: ReadonlyArray<{ readonly request: number; readonly bytes: number }>;
}

export function sessionView(entry: ClientEntry): SessionView {
  return {
    client: entry.client,
    userId: entry.userId,
    epoch: entry.epoch,
    watermark: entry.watermark,
    latestCommitOp: entry.latestCommitOp,
    latestCommitTime: isoTimeOf(entry.latestCommitTimestamp),
    replies: entry.replies.map((reply) => ({ request: reply.request, bytes: reply.reply.length })),
  };
}

/** A cached reply frame decoded: what the client was (and on a retry is again) answered. */
export interface ReplyView {
  readonly status: string;
  /** The journal op that applied the request. */
  readonly op: number;
  /** Journal time of that op, ISO 8601. */
  readonly time: string;
  readonly watermark: number;
  /** The reply body as JSON (credentials redacted); its text when it is not JSON. */
  readonly body: unknown;
  readonly bytes: number;
}

export function replyView(frame: Buffer): ReplyView {
  const header = decodeHeader(frame, 0);
  const text = frame.subarray(HEADER_SIZE).toString('utf8');
  let body: unknown = text;
  try {
    body = redactCredentials(JSON.parse(text));
  } catch {
    // not JSON: shown as text
  }
  return {
    status: STATUS_NAMES[header.status as Status] ?? `STATUS_${header.status}`,
    op: header.op,
    time: isoTimeOf(header.timestamp),
    watermark: header.watermark,
    body,
    bytes: frame.length,
  };
}

/**
 * The answer to "was request N of this session applied?":
 * - `cached`: applied, and its reply is still in the ring (shown);
 * - `applied-not-cached`: applied (N ≤ watermark) but the ring has moved past it;
 * - `not-applied`: N > watermark; a client retrying it under the same number
 *   will have it applied then, once.
 */
export interface RequestAnswer {
  readonly client: string;
  readonly request: number;
  readonly applied: boolean;
  readonly verdict: 'cached' | 'applied-not-cached' | 'not-applied';
  readonly watermark: number;
  readonly reply: ReplyView | null;
}

export function requestAnswer(entry: ClientEntry, request: number): RequestAnswer {
  const cached = entry.replies.find((reply) => reply.request === request);
  const applied = request <= entry.watermark;
  return {
    client: entry.client,
    request,
    applied,
    verdict: cached ? 'cached' : applied ? 'applied-not-cached' : 'not-applied',
    watermark: entry.watermark,
    reply: cached ? replyView(cached.reply) : null,
  };
}

/** Text lines of one session for `once sessions show`. */
export function sessionLines(view: SessionView): string[] {
  const ring =
    view.replies.length === 0
      ? '(empty)'
      : view.replies.map((reply) => `#${reply.request} ${reply.bytes} B`).join(', ');
  return [
    `client          ${view.client}`,
    `user            ${view.userId}`,
    `epoch           ${view.epoch}`,
    `watermark       ${view.watermark}`,
    `latest commit   op ${view.latestCommitOp} at ${view.latestCommitTime}`,
    `cached replies  ${ring}`,
  ];
}

/** Text lines answering `once sessions show CLIENT --request N`. */
export function requestAnswerLines(answer: RequestAnswer): string[] {
  const head = `request ${answer.request} of ${answer.client}:`;
  switch (answer.verdict) {
    case 'cached':
      return [
        `${head} APPLIED at op ${answer.reply!.op} (${answer.reply!.time}), reply cached:`,
        `  status ${answer.reply!.status}, ${answer.reply!.bytes} B`,
        `  ${JSON.stringify(answer.reply!.body)}`,
      ];
    case 'applied-not-cached':
      return [
        `${head} APPLIED (watermark ${answer.watermark}); its reply is no longer cached (the ring holds the latest replies only)`,
      ];
    case 'not-applied':
      return [
        `${head} NOT APPLIED (watermark ${answer.watermark}); retried under the same number it is applied once`,
      ];
  }
}
