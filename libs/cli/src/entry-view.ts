import { decodeCommandBody, decodeHttpRequestBody, decodeReplyChecks } from '@once/engine/internal';
import { EntryKind } from '@once/journal';
import { type JournalEntry } from '@once/journal/internal';
import { ZERO_CLIENT_ID } from '@once/protocol/internal';
import { REDACTED, boundedCopy, isCredentialKey, redactCredentials } from './redact';
import { isoTimeOf } from './time-format';

/** The name an operator reads for each entry kind (the wire operation's, or the node's own). */
const KIND_NAMES: Readonly<Record<EntryKind, string>> = {
  [EntryKind.Register]: 'REGISTER',
  [EntryKind.Logout]: 'LOGOUT',
  [EntryKind.Command]: 'COMMAND',
  [EntryKind.Release]: 'RELEASE',
  [EntryKind.Boot]: 'BOOT',
  [EntryKind.Manifest]: 'MANIFEST',
  [EntryKind.ReplyCheck]: 'REPLY_CHECK',
  [EntryKind.HttpRequest]: 'HTTP_REQUEST',
};

/** What stands for a COMMAND body that is not shown (see {@link BodyDisclosure}). */
export const WITHHELD = '[withheld]';

/**
 * How COMMAND bodies are shown. Redaction is opt-in per field by the module
 * that owns the data, never guessed from field names:
 * - `declared`: the running node's journal feed, which has the code. A
 *   command that declared its sensitive fields (`@Command(pattern, {
 *   sensitive: [...] })`, `[]` for none) is shown with those fields, and
 *   credential-looking names as a safety net, redacted; a command that
 *   declared nothing has its body withheld ({@link WITHHELD}).
 * - `withheld`: every COMMAND body withheld; the default, and what `once
 *   journal show|tail` print for a stopped directory, read without the
 *   service's code (so without its declarations).
 * - `by-name`: bodies shown, credential-looking names redacted: `once
 *   journal show|tail --show-bodies`, the choice of an operator who can read
 *   the data directory's files anyway. Not a guarantee: a name list cannot
 *   know every secret.
 */
export type BodyDisclosure =
  | {
      readonly kind: 'declared';
      /** The fields `pattern` declared sensitive; undefined: it declared nothing. */
      readonly sensitive: (pattern: string) => readonly string[] | undefined;
    }
  | { readonly kind: 'withheld' }
  | { readonly kind: 'by-name' };

const WITHHOLD_ALL: BodyDisclosure = { kind: 'withheld' };

/**
 * A journal entry as the CLI shows it: every header field decoded, the body
 * decoded by kind and stripped of credentials. This is also the `--json`
 * shape of `once journal show` and `once journal tail`, so its fields are a
 * contract for scripts: add fields, never rename one.
 */
export interface EntryView {
  readonly op: number;
  /** Journal time, ISO 8601 in UTC (ms precision). */
  readonly time: string;
  /** Journal time in ns since the Unix epoch, as a decimal string (it exceeds 2^53). */
  readonly timestampNs: string;
  /** REGISTER, LOGOUT, COMMAND, RELEASE, BOOT, MANIFEST, REPLY_CHECK or HTTP_REQUEST. */
  readonly kind: string;
  /** The client id (32 hex digits); `system` for the node's own entries (genesis, settings). */
  readonly client: string;
  readonly session: number;
  readonly request: number;
  readonly userId: number;
  /** A COMMAND's or an HTTP_REQUEST's pattern; null for other kinds. */
  readonly pattern: string | null;
  /**
   * The body decoded: a COMMAND's `data` (or `{refused: {code, message}}` for
   * a command refused at admission), a BOOT's settings, a MANIFEST's states
   * and commands, a REPLY_CHECK's `{replies: [{op, checksum}]}`, an
   * HTTP_REQUEST's `{scope, key, status, refusalStatus, data}` (its data shown
   * as a COMMAND's), null when empty.
   * Credentials are replaced by "[redacted]"; a REGISTER body is never shown;
   * a COMMAND's data is "[withheld]" unless its {@link BodyDisclosure} lets
   * it be shown. Values nested deeper than 64 levels read
   * "[nested deeper than 64 levels]" (so any body the journal took prints).
   */
  readonly body: unknown;
  readonly bodyBytes: number;
}

/**
 * Decodes `entry` for printing, its COMMAND data shown as `disclosure` says
 * (default: withheld); never throws on an unexpected body (it says so
 * instead), however deep its JSON.
 */
export function entryView(
  entry: JournalEntry,
  disclosure: BodyDisclosure = WITHHOLD_ALL,
): EntryView {
  const system = entry.client === ZERO_CLIENT_ID;
  const decoded = decodeBody(entry, disclosure);
  return {
    op: entry.op,
    time: isoTimeOf(entry.timestamp),
    timestampNs: entry.timestamp.toString(),
    kind: KIND_NAMES[entry.kind] ?? `KIND_${String(entry.kind)}`,
    client: system ? 'system' : entry.client,
    session: entry.session,
    request: entry.request,
    userId: entry.userId,
    pattern: decoded.pattern,
    body: decoded.body,
    bodyBytes: entry.body.length,
  };
}

function decodeBody(
  entry: JournalEntry,
  disclosure: BodyDisclosure,
): { pattern: string | null; body: unknown } {
  if (entry.body.length === 0) return { pattern: null, body: null };
  switch (entry.kind) {
    case EntryKind.Register:
      // The gateway journals no credentials, but a REGISTER body is shown by no
      // version of this tool whatever it holds.
      return { pattern: null, body: REDACTED };
    case EntryKind.Command: {
      const command = decodeCommandBody(entry.body);
      if (!command) return { pattern: null, body: undecodable(entry.body) };
      if (command.refusal) {
        const { code, message } = command.refusal;
        return { pattern: command.pattern, body: { refused: { code, message } } };
      }
      return {
        pattern: command.pattern,
        body: commandData(command.pattern, command.data, disclosure),
      };
    }
    case EntryKind.ReplyCheck:
      return { pattern: null, body: replyChecksOf(entry.body) };
    case EntryKind.HttpRequest: {
      const request = decodeHttpRequestBody(entry.body);
      if (!request) return { pattern: null, body: undecodable(entry.body) };
      const { scope, key, status, refusalStatus, pattern } = request;
      return {
        pattern,
        body: {
          scope,
          key,
          status,
          refusalStatus,
          data: commandData(pattern, request.data, disclosure),
        },
      };
    }
    default:
      return { pattern: null, body: redactCredentials(parseJson(entry.body)) };
  }
}

/** A COMMAND's data as `disclosure` lets it be shown. */
function commandData(pattern: string, data: unknown, disclosure: BodyDisclosure): unknown {
  switch (disclosure.kind) {
    case 'withheld':
      return data === null ? null : WITHHELD;
    case 'by-name':
      return redactCredentials(data);
    case 'declared': {
      const sensitive = disclosure.sensitive(pattern);
      if (sensitive === undefined) return data === null ? null : WITHHELD;
      // A declared list is a few names: no Set built per entry for it.
      return boundedCopy(data, (key) => sensitive.includes(key) || isCredentialKey(key));
    }
  }
}

function replyChecksOf(bytes: Buffer): unknown {
  try {
    const replies = decodeReplyChecks(bytes).map(({ op, checksum }) => ({
      op,
      checksum: checksum.toString('hex'),
    }));
    return { replies };
  } catch {
    return { undecodable: `${bytes.length} bytes that are not a reply check` };
  }
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    return undecodable(bytes);
  }
}

/** What is shown for a body that is not what its kind should hold: its size only (it may be anything). */
function undecodable(bytes: Buffer): { undecodable: string } {
  return { undecodable: `${bytes.length} bytes that are not this kind's JSON` };
}

/** One line of `once journal show|tail` in text mode. */
export function entryLine(view: EntryView): string {
  const who =
    view.client === 'system'
      ? 'system'
      : `client ${view.client} session ${view.session} request ${view.request} user ${view.userId}`;
  const what = view.pattern === null ? '' : ` ${view.pattern}`;
  const body = view.body === null ? '' : ` ${JSON.stringify(view.body)}`;
  return `op ${view.op}  ${view.time}  ${view.kind.padEnd(8)} ${who}${what}${body}`;
}
