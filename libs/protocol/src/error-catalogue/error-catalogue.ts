/**
 * The catalogue of every error `code` a once package or the reference service
 * raises, answers or refuses with: what it means and what to do. It is the one
 * source of docs/reference/errors.md (`npm run docs:generate` writes it,
 * `npm run docs:check` fails when it differs), and a spec checks that every
 * code the source raises is listed here, so a new code cannot ship without its
 * explanation.
 *
 * It lives in `@once/protocol` because every package depends on it, so any of
 * them can read the catalogue without a cycle; nothing here is behaviour.
 */

/** One row of the reference: codes that share a meaning and a remedy. */
export interface ErrorCodeEntry {
  /** The codes, as raised (`error.code`), answered or refused with. */
  readonly codes: readonly string[];
  /** The HTTP status it is answered with, for the operations listener's codes. */
  readonly status?: string;
  /** What it means (markdown), in the reader's words. */
  readonly meaning: string;
  /** What to do about it (markdown). */
  readonly remedy: string;
}

/** A table of the reference. */
export interface ErrorCodeTable {
  /** The meaning column's title, when not "what it means". */
  readonly meaningTitle?: string;
  readonly codes: readonly ErrorCodeEntry[];
}

/** A section of the reference: a heading, then prose and tables in order. */
export interface ErrorSection {
  readonly title: string;
  readonly parts: readonly ({ readonly text: string } | ErrorCodeTable)[];
}

/** The reference's opening: where a code shows up. */
export const ERROR_REFERENCE_PREAMBLE =
  'Every error once raises carries a stable, machine-readable `code`: branch on it, never on\nthe message, whose wording may change. Where a code shows up:\n\n- **A node that stops** prints one line and its causes on stderr and exits 1:\n  `once: cannot start: <message> (<CODE>)` (or `cannot serve`), then `cause:` lines;\n  with `ONCE_LOG_FORMAT=json` the line is a JSON object with `code`, `error` and\n  `causes`. An invalid setting exits 2 with `once: invalid setting: <message>`. In a\n  team\'s own application the error is what `listen()` or the runtime\'s `whenReady()`\n  rejects with, its `code` a property of the `Error`.\n- **A refusal** is a reply body, `{"ok":false,"error":{"code":"…","message":"…"}}`.\n  For a command it is committed: cached, replayed, and given again to a retry under the\n  same request number. `@once/sdk` rejects with `CommandRefusedError`, whose `code` is\n  the refusal\'s.\n- **A protocol status** (`NOT_READY`, `REQUEST_GAP`, …) and an eviction reason\n  (`NO_SESSION`, `SUPERSEDED`, …) are frame fields, listed in\n  [PROTOCOL.md](../PROTOCOL.md#status-codes); `@once/sdk` uses their names as codes.\n- **The `once` CLI** prints `once: <message>`, or `{"error":{"code","message"}}` with\n  `--json`; exit 1 for a failure, 2 for a usage error.\n\n[Changing your code](../guides/changing-your-code.md) explains the codes of the first\nsection at length.';

export const ERROR_SECTIONS: readonly ErrorSection[] = [
  {
    title: 'The code and the journal disagree',
    parts: [
      {
        text: 'The node checks the code that boots against what the journal recorded of the code in\nforce (MANIFEST entries, snapshots) and of the replies it acknowledged (REPLY_CHECK\nentries). On a disagreement it stops at the op where it met it, exit 1, and serves\nnothing: no older snapshot or replay can mend code.',
      },
      {
        codes: [
          {
            codes: ['NONDETERMINISTIC_APPLY'],
            meaning:
              "A command applied again (replay, or a follower) gave another reply than the one acknowledged: its handler changed without a version bump, or is not deterministic. The message names the op, the pattern, the state and its version in force, the reply computed now and the journaled reply's checksum.",
            remedy:
              'Bump the state\'s version and keep the old rule for older entries (`ctx.version`), then restart. A follower that stops so during a rolling upgrade: redeploy the old build on it, then fix the code. See "When a bump was forgotten" in the guide.',
          },
          {
            codes: ['MODULE_VERSION_UNSUPPORTED'],
            meaning:
              "A MANIFEST entry (in the journal, or the one in force in a snapshot) puts a state at a higher version than this code provides: a downgrade, or an older node meeting a newer node's MANIFEST. Names the state and both versions. (A state or command this code lacks altogether is `STATE_NOT_PROVIDED` or `COMMAND_NOT_PROVIDED`.)",
            remedy:
              'Run code that provides that version: the build that journaled it, or a newer one. To undo a rule, roll forward to a new version whose branch gives the old rule; restoring a copy of the data directory from before the upgrade also works, and loses everything acknowledged since.',
          },
          {
            codes: ['STATE_NOT_PROVIDED'],
            meaning:
              'A snapshot or the MANIFEST in force holds a state that no module of this code provides, and the code has not retired it. Names the state.',
            remedy:
              "Restore the module, or retire the state on purpose: `retired: { states: ['name'] }` in `OnceModule.forRoot`, `ONCE_RETIRED_STATES=name` for the reference service. Its data is then dropped at the next snapshot.",
          },
          {
            codes: ['COMMAND_NOT_PROVIDED'],
            meaning:
              'A journaled command names a pattern that was dispatched at its op, and no handler of this code claims it, nor is it retired. Names the pattern and the op.',
            remedy:
              "Restore the handler, or retire the pattern on purpose: `retired: { commands: ['pattern'] }`, `ONCE_RETIRED_COMMANDS=pattern`. Its old entries then change nothing and answer `COMMAND_RETIRED`: retire a command only once no client still retries it.",
          },
          {
            codes: ['SNAPSHOTS_UNUSABLE'],
            meaning:
              'The journal was compacted (`ONCE_JOURNAL_RETAIN`, `once compact`) and no snapshot that covers the missing ops restores. Nothing in the journal is corrupt; the state cannot be rebuilt from it. The message lists why each snapshot was skipped.',
            remedy:
              'Read the reasons: a `MODULE_VERSION_UNSUPPORTED` or `STATE_NOT_PROVIDED` among them is a code problem (deploy the right build, or retire); a corrupt snapshot needs a backup of the data directory. In a cluster, a node can start again on an empty data directory: it copies the stream from op 1.',
          },
          {
            codes: ['MANIFEST_INVALID'],
            meaning:
              "A MANIFEST entry's body, which passed its checksum, does not read as a manifest.",
            remedy:
              'The entry was not written by once: treat the data directory as tampered with and restore it from a backup.',
          },
          {
            codes: ['REPLY_CHECK_INVALID'],
            meaning: "A REPLY_CHECK entry's body, which passed its checksum, does not read as one.",
            remedy: 'As for `MANIFEST_INVALID`.',
          },
          {
            codes: ['SNAPSHOT_TOO_NEW'],
            meaning:
              'A snapshot holds a state written by a newer version of its module than this code provides (the shape it wrote may not read here). Not fatal: the snapshot is skipped with a warning, like an unreadable one, for an older snapshot or a replay from op 1; it appears among the reasons of `SNAPSHOTS_UNUSABLE` when nothing else is left.',
            remedy:
              'Run the newer build, or keep enough older snapshots (`ONCE_JOURNAL_RETAIN`) for a rollback.',
          },
        ],
      },
      { text: 'Startup refuses a declaration that contradicts itself:' },
      {
        codes: [
          {
            codes: ['INVALID_STATE_VERSION'],
            meaning: 'A `@ReplicatedState` declares a version that is not a whole number from 1.',
            remedy: 'Fix the `version` option.',
          },
          {
            codes: ['RETIRED_STATE_PROVIDED'],
            meaning: 'A state is declared retired and a module still provides it.',
            remedy: 'Remove one: the module, or the retired name.',
          },
          {
            codes: ['RETIRED_PATTERN_HANDLED'],
            meaning: 'A command pattern is declared retired and a handler still provides it.',
            remedy: 'Remove one: the handler, or the retired name.',
          },
        ],
      },
      {
        text: "`STATE_MISMATCH` is what builds before state versions raised where `STATE_NOT_PROVIDED`\nis raised now; a snapshot that lacks a state is no longer an error (the state starts\nempty at the snapshot's op).",
      },
    ],
  },
  {
    title: 'Refusals in a reply body',
    parts: [
      {
        text: "The node's own refusal codes; a handler's own (`INSUFFICIENT_FUNDS`, …) are the team's.\nAll are committed like any reply, except where the table says otherwise.",
      },
      {
        codes: [
          {
            codes: ['COMMAND_RETIRED'],
            meaning:
              'What an entry of a retired command answers when it is replayed: the request was journaled and applied by code that has since been retired, and its reply can no longer be rebuilt. The entry changes nothing.',
            remedy:
              'The request is settled; its outcome is not known. Settle it through the state (a query) or an idempotency key. Retire commands only once no client retries them.',
          },
          {
            codes: ['UNKNOWN_PATTERN'],
            meaning:
              'No handler for the pattern, or a pattern the MANIFEST in force does not list (a new command before its MANIFEST, a retired one). The gateway\'s message begins with NestJS\'s own: "There is no matching message handler defined in the remote service."',
            remedy:
              'Check the pattern; in a rolling upgrade, send new commands only after the upgrade.',
          },
          {
            codes: ['HANDLER_FAILED'],
            meaning:
              'The apply step threw something that is neither a `CommandError` nor an `RpcException`. The message names the op, never the error.',
            remedy:
              'Read the server log at that op (live only; replay logs nothing). Refuse with `CommandError` in the handler instead.',
          },
          {
            codes: ['ASYNC_HANDLER'],
            meaning:
              'The apply step returned a promise. (An `async` `@Command` method is refused at bootstrap, `HANDLER_DISCOVERY`.)',
            remedy: 'Make the apply step synchronous; move waiting to an `@Admit` step.',
          },
          {
            codes: ['IDEMPOTENCY_KEY_REUSED'],
            meaning:
              'HTTP 422: an HTTP request carried an `Idempotency-Key` the node already holds (done or being applied) for another request: same principal and route, another fingerprint (method, route, data). Answered at admission, or at apply when two nodes journaled the same key (a new leader); either way nothing changes and nothing is recorded for the key.',
            remedy:
              'Use a new key for a new request; retry a request only with its own key and the very same data.',
          },
          {
            codes: ['REPLY_NOT_SINGLE'],
            meaning:
              "A command's Observable emitted later or more than once; a query's emitted more than once.",
            remedy: 'Return the value, or an array of the values.',
          },
          {
            codes: ['INVALID_ENTRY'],
            meaning: 'The journaled body could not be read back as a command.',
            remedy: 'A bug or a tampered entry: report it with the op.',
          },
          {
            codes: ['ADMISSION_FAILED'],
            meaning:
              'An `@Admit` step threw something unexpected. The message carries an error id.',
            remedy: 'Find the id in the server log.',
          },
          {
            codes: ['ADMISSION_REFUSED'],
            meaning:
              'A pipe, or an `RpcException` of an `@Admit` step, refused the request (one without a code of its own).',
            remedy: 'Fix the request.',
          },
          {
            codes: ['FORBIDDEN'],
            meaning: 'A guard or an interceptor said no (one without a code of its own).',
            remedy: "Check the user's rights.",
          },
          {
            codes: ['RPC_EXCEPTION'],
            meaning: 'The apply step threw an `RpcException` without an UPPER_SNAKE `code`.',
            remedy: 'Read `error.rpcError`.',
          },
          {
            codes: ['QUERY_PATTERN'],
            meaning:
              "A COMMAND named a `@Query`'s pattern. (`OnceClientProxy.emit()` of a query's pattern fails with the same code, and sends nothing.)",
            remedy: 'Send it as a query (`send()`).',
          },
          {
            codes: ['QUERY_FAILED'],
            meaning: "A query's pipe or handler failed. Never journaled.",
            remedy:
              'Read the server log (the message carries an error id when the error was unexpected).',
          },
        ],
      },
    ],
  },
  {
    title: 'Data directory and journal',
    parts: [
      {
        codes: [
          {
            codes: ['JOURNAL_CORRUPT'],
            meaning:
              'An entry failed verification (length, checksum, op, an unknown entry kind) or is missing. Names the op.',
            remedy:
              '`--truncate-corrupt-tail` (or `once truncate-corrupt-tail`) shows what a repair drops, `--yes` does it. An unknown entry kind 18, 19 or 20 is a MANIFEST, a REPLY_CHECK or an HTTP_REQUEST read by a build older than them: nothing is corrupt, run a newer build, and never repair with the older one (see [UPGRADING.md](../../UPGRADING.md)).',
          },
          {
            codes: ['JOURNAL_COMPACTED'],
            meaning:
              "A read asked for ops retention deleted; or a truncation would delete every snapshot that covers the journal's first op.",
            remedy:
              "Read from the journal's first op on; repair from a backup if a cut must go further.",
          },
          {
            codes: ['JOURNAL_FAILED'],
            meaning:
              'A write to the journal failed; the node acknowledges nothing more (fail-stop).',
            remedy: "Fix the disk, restart: the journal's end is taken from what is on disk.",
          },
          {
            codes: ['META_CORRUPT'],
            meaning:
              "The data directory's meta record is unreadable, or missing although the journal has entries (also: a format-1 build on an upgraded directory; a format-2 directory that already holds keyed records, see [the data directory's format](../operating/data-directory-format.md)).",
            remedy: 'Restore the data directory from a backup; run a build that reads its format.',
          },
          {
            codes: ['FORMAT_UPGRADE_NEEDED'],
            meaning:
              'A command that upgrades nothing (`--verify`, `once verify`, `once sessions`, `once journal …`, `once compact`, `once snapshot`) met a directory of an older format it cannot use as it is: format 1 (its keys move), or format 2 where keyed records would be written.',
            remedy:
              'Start the node on the directory once (it upgrades it and logs it), or use the build that wrote it; then run the command again.',
          },
          {
            codes: ['UNSUPPORTED_FORMAT'],
            meaning:
              "The data directory's format version is not the one this build reads (e.g. a build of format 2 on a directory a build of format 3 upgraded).",
            remedy:
              "Run a build that reads it: there is no downgrade ([the data directory's format](../operating/data-directory-format.md)).",
          },
          {
            codes: ['NODE_SECRET_MISMATCH'],
            meaning:
              'The node secret file is missing, of the wrong size, or not the one recorded for this directory.',
            remedy:
              "Put back the directory's own secret file; a new secret would invalidate every resume token.",
          },
          {
            codes: ['DATA_DIR_IN_USE'],
            meaning:
              "Another process, or an earlier store of this process not yet closed, holds the directory's LevelDB lock; the message says which.",
            remedy:
              'One process per data directory: stop the other, or use another directory. The CLI reads stopped directories only.',
          },
          {
            codes: ['DATA_DIR_INCOMPLETE'],
            meaning: "The directory's first start was cut short; it holds no committed entry.",
            remedy: 'Remove it (nothing is lost) and start again.',
          },
          {
            codes: ['DATA_DIR_UNREADABLE'],
            meaning: 'LevelDB cannot open the directory; the `cause:` lines say why.',
            remedy: 'Follow the cause (permissions, disk, LevelDB corruption).',
          },
          {
            codes: ['SNAPSHOT_INVALID'],
            meaning:
              'A stored snapshot does not decode. Logged as a warning; an older snapshot, or a replay from op 1, takes its place.',
            remedy:
              'Nothing, unless the journal was compacted (then `SNAPSHOTS_UNUSABLE` stops the boot).',
          },
          {
            codes: ['TABLE_SNAPSHOT_INVALID'],
            meaning:
              'The client table part of a snapshot, or a session record kept beside it (keyed state), does not decode; handled as `SNAPSHOT_INVALID`.',
            remedy: 'As for `SNAPSHOT_INVALID`.',
          },
          {
            codes: ['KEYED_STATE_BEHIND'],
            meaning:
              'A snapshot with keyed state is older than the keyed records on disk, or they are missing: it is not restored (see below).',
            remedy:
              'Nothing, unless the journal was compacted (then `SNAPSHOTS_UNUSABLE` stops the boot).',
          },
        ],
      },
      {
        text: '`KEYED_STATE_BEHIND`: the keyed records on disk (see\n[Keyed state or whole-object state](../guides/keyed-state.md)) are the state at the\nnewest snapshot that wrote them, so an older snapshot with keyed state cannot be\nrestored. The boot meets that only when the newest snapshot is not usable (unreadable\nalong with the copy kept beside the records, ahead of a journal cut short, written by a\nnewer build): it logs the snapshot as not\nrestoring (the message says which op the records on disk are at), tries an older one,\nand otherwise replays from op 1 into fresh records, the old ones deleted in the\nbackground after the next snapshot. Nothing to do: the node serves when the replay is\ndone. When the journal was compacted, the replay from op 1 is not possible and\n`SNAPSHOTS_UNUSABLE` stops the boot, listing this among the reasons; a node of a cluster\ncan then start on an empty data directory.',
      },
    ],
  },
  {
    title: 'Cluster mode',
    parts: [
      {
        codes: [
          {
            codes: ['NATS_UNREACHABLE'],
            meaning:
              'At start, no NATS server of `ONCE_NATS_SERVERS` answered, or TLS with them failed (an unverifiable certificate, a timeout within `ONCE_NATS_CONNECT_TIMEOUT_MS`). Later outages are ridden out. Addresses are shown without credentials.',
            remedy:
              'Check the servers and the addresses; with TLS, the CA (`ONCE_NATS_TLS_CA_FILE`), the server name and the client certificate (a server that requires one and gets none makes this a timeout, said so).',
          },
          {
            codes: ['NATS_AUTH_FAILED'],
            meaning:
              "At start, the NATS servers refused this node's credentials (none given where some are required, a wrong password, token or nkey, an expired JWT). The message says how the node authenticated (`no credentials`, `user <name>`, `token`, `nkey U…`, `creds file`), never the secret. Exit 1.",
            remedy:
              "Check `ONCE_NATS_USER` and `ONCE_NATS_PASSWORD[_FILE]`, `ONCE_NATS_TOKEN[_FILE]`, `ONCE_NATS_NKEY_SEED_FILE` or `ONCE_NATS_CREDS_FILE` against the servers' authorization (see docs/operating/nats-security.md).",
          },
          {
            codes: ['NATS_SECURITY_INVALID'],
            meaning:
              'The NATS security settings do not fit together (two ways to authenticate, a password without its user, a client certificate without its key, a seed that is not a user nkey seed, credentials both in `ONCE_NATS_SERVERS` and in settings) or a file they name cannot be read. The reference service reports it as `INVALID_CONFIG` (exit 2).',
            remedy: 'Fix the setting the message names.',
          },
          {
            codes: ['JOURNAL_STREAM_MISMATCH'],
            meaning:
              'The journal stream exists with another configuration than the journal needs (storage, denied deletes and purges, duplicate window).',
            remedy:
              "Fix the stream's configuration, or use another `ONCE_CLUSTER_NAME`. Nothing is changed on it by the node.",
          },
          {
            codes: ['CLUSTER_BUCKET_MISMATCH'],
            meaning:
              "The cluster's KV bucket expires values after another TTL than this node's lease TTL.",
            remedy: 'Give every node of the cluster the same lease timing.',
          },
          {
            codes: ['CLUSTER_CONFIG_CORRUPT'],
            meaning: "A value in the cluster's configuration bucket (the settings) is unusable.",
            remedy: 'Restore the bucket, or start a new cluster.',
          },
          {
            codes: ['LOCAL_TAIL_DIVERGED'],
            meaning:
              "The node's local copy of the journal holds, at the named op, an entry the stream does not (a tail the stream lost).",
            remedy:
              "Move the node's data directory aside and start it on an empty one: it copies the stream.",
          },
          {
            codes: ['JOURNAL_FENCED'],
            meaning:
              "Another writer appended to the stream: this leader's term is over. Its pending entries were not stored and are answered NOT_READY; clients resend.",
            remedy: 'Nothing: the node follows again.',
          },
          {
            codes: ['NOT_LEADER'],
            meaning:
              "An append was asked of a node that does not lead; reported as the engine being unavailable. An `@Idempotent` HTTP route of a follower answers it as 503 with `Retry-After: 1` and `Once-Leader` (the leader's advertised address, when known).",
            remedy:
              "Nothing: followers answer writes with NOT_READY and the leader's address; an HTTP load balancer retries the 503 on another backend.",
          },
          {
            codes: ['CLUSTER_KEY_MISSING'],
            meaning:
              'Cluster mode without `ONCE_CLUSTER_KEY_FILE` (`--cluster-key-file`). The node stops before it opens its data directory or reaches NATS.',
            remedy:
              'Give every node the same key file: `openssl rand -hex 32 > cluster.key` (see [the cluster key](../operating/cluster-key.md)).',
          },
          {
            codes: ['CLUSTER_KEY_UNREADABLE'],
            meaning:
              "The key file cannot be read (absent, a directory, no permission); the message names the file and the system's code (`ENOENT`, `EACCES`).",
            remedy: "Fix the path or the file's permissions for the node's user.",
          },
          {
            codes: ['CLUSTER_KEY_INVALID'],
            meaning:
              'The key file holds no key, a line that is not hex digits, or a key under 32 bytes. The message names the file and the line, never a key.',
            remedy:
              'One hex key of at least 64 digits per line; blank lines and `#` comments are skipped.',
          },
          {
            codes: ['JOURNAL_GROUP_UNVERIFIED'],
            meaning:
              "A stream message does not verify under this node's cluster key: no MAC, or one made with another key, over other bytes or at another place in the stream. The node cannot tell a forgery from a node given another key. It applies nothing of the message, stops applying there (`stoppedApplying` in PING and `/health/ready`, op = the message's first op), gives up or never takes the lease, and serves nothing until restarted; at start it exits 1.",
            remedy:
              "If this node's key file differs from the others', give it theirs and restart it. If every node reports it, something without the key wrote to the stream: treat the NATS account as compromised, find who can publish to the stream's subject (see the account layout), and restore the stream from a backup taken before the message's sequence. A cluster upgraded from a build without keys needs `ONCE_CLUSTER_UNSIGNED_THROUGH_SEQ` (see the guide).",
          },
          {
            codes: ['LEASE_VALUE_UNVERIFIED'],
            meaning:
              'Logged (a warning, at most once per renewal interval): the lease key holds a value that is not one the lease writes, does not verify under the cluster key, or replays an older leadership. It names no leader: no node follows it or sends clients to its address; the leader writes its renewal over it.',
            remedy:
              "As for `JOURNAL_GROUP_UNVERIFIED`: find who writes to the cluster's KV bucket.",
          },
        ],
      },
    ],
  },
  {
    title: 'Startup and options',
    parts: [
      {
        codes: [
          {
            codes: ['INVALID_SETTING'],
            meaning:
              'A setting (flag, variable, option) does not validate; the message names it and what it takes.',
            remedy: 'Fix the value (see [Configuration](../operating/configuration.md)).',
          },
          {
            codes: ['CLUSTER_OPTION_MOVED'],
            meaning:
              '`OnceModule` was given the removed `cluster` option: cluster mode is now a node factory, so that single-node applications carry no NATS client.',
            remedy:
              'Install `@once/cluster` and pass `node: clusterNode({...})` with the same fields ([cluster mode for your app](../guides/cluster-mode.md)).',
          },
          {
            codes: ['INVALID_CONFIG'],
            meaning:
              "The reference service's configuration does not validate (a setting, a TLS file it cannot read). Exit 2.",
            remedy: 'Fix the setting the message names.',
          },
          {
            codes: ['INVALID_SETTINGS'],
            meaning:
              '`OnceModule` engine limits out of range (`clientsMax`, `ring`, `sessionTtlMs`).',
            remedy: 'Fix the option.',
          },
          {
            codes: ['ADMIN_PASSWORD_REQUIRED'],
            meaning:
              'The reference service would listen on a host that is not loopback (`ONCE_HOST` not 127.x, `::1` or `localhost`) with the default admin password. Exit 2.',
            remedy:
              'Set `ONCE_ADMIN_PASSWORD_FILE` or `ONCE_ADMIN_PASSWORD`, or listen on 127.0.0.1.',
          },
          {
            codes: ['INVALID_GATEWAY_OPTIONS'],
            meaning:
              'An `OnceServer` option is out of range, `tls` and `tlsOptions` are both given, or `tlsOptions` lacks a server identity (key and cert, or pfx).',
            remedy: 'Fix the option.',
          },
          {
            codes: ['INVALID_TABLE_OPTIONS'],
            meaning: "A client table's `capacity` or `ring` is out of range.",
            remedy: 'Fix the option.',
          },
          {
            codes: ['OPERATIONS_CREDENTIAL_MISSING'],
            meaning:
              "The reference service: `ONCE_JOURNAL_FEED=on` without `ONCE_OPERATIONS_TOKEN_FILE`. The feed serves every user's commands, so it is never served without a credential. Printed in the exit-2 `invalid setting` line.",
            remedy:
              'Write a token of 16 or more characters to a file readable by the service only, and name it in `ONCE_OPERATIONS_TOKEN_FILE`.',
          },
          {
            codes: ['OPERATIONS_CREDENTIAL_INVALID'],
            meaning:
              'The operations token file cannot be read, or its token is shorter than 16 characters. The message names the file, never its content. Exit 2.',
            remedy: 'Fix the file or its permissions.',
          },
          {
            codes: ['OPTION_UNSUPPORTED'],
            meaning:
              'A NestJS transport option once does not serve, given to `OnceServer` or `OnceClientProxy`: `serializer`, `deserializer` (the wire format is fixed), `retryAttempts`, `retryDelay`, `maxBufferSize`, `incompleteMessageTimeout`, `maxSendBufferSize`, `socketClass`; or `tlsOptions` beside `tls`.',
            remedy:
              'Use what the message names: a pipe or interceptor for codecs; `frameBytesMax` (both), `partialFrameTimeoutMs`, `writeBufferBytesMax`/`queuedMax`, `reconnect`; `tlsOptions` (served) for TLS.',
          },
          {
            codes: ['OPTION_UNKNOWN'],
            meaning:
              "An option `OnceServer` or `OnceClientProxy` does not know (a misspelling, another transport's option): refused, never ignored.",
            remedy: 'Use a name the message lists.',
          },
          {
            codes: ['HANDLER_DISCOVERY'],
            meaning:
              'The decorated handlers do not form a valid set (an `async` `@Command`, …); the message says which and why.',
            remedy: 'Follow the message.',
          },
          {
            codes: ['DUPLICATE_PATTERN'],
            meaning: 'Two command handlers claim one pattern.',
            remedy: 'Rename one.',
          },
          {
            codes: ['DUPLICATE_STATE'],
            meaning: 'Two `@ReplicatedState` providers claim one name.',
            remedy: 'Rename one.',
          },
          {
            codes: ['NOT_A_ONCE_HANDLER'],
            meaning: 'An `@EventPattern` or plain `@MessagePattern` is bound to `OnceServer`.',
            remedy: 'Use `@Command` or `@Query`, or bind the handler to another transport.',
          },
          {
            codes: ['ONCE_RUNTIME_MISSING'],
            meaning:
              '`OnceServer` serves an application that does not import `OnceModule.forRoot`.',
            remedy: 'Import it.',
          },
        ],
      },
    ],
  },
  {
    title: 'Operations listener answers',
    parts: [
      {
        text: 'What the reference service\'s metrics listener (`ONCE_METRICS_PORT`) answers besides 200,\nas `{"status":"error","code","message"}` (see [the operations listener](../operating/operations-listener.md)):',
      },
      {
        codes: [
          {
            codes: ['HOST_NOT_ALLOWED'],
            status: '403',
            meaning:
              "The request's `Host` is not the listener's own address, `localhost`, an IP literal or a name of `ONCE_OPERATIONS_ALLOWED_HOSTS` (DNS rebinding).",
            remedy:
              "Use the IP address, or add the name (a proxy's, a DNS name) to `ONCE_OPERATIONS_ALLOWED_HOSTS`.",
          },
          {
            codes: ['UNAUTHORIZED'],
            status: '401',
            meaning:
              'No credential, or not the one in `ONCE_OPERATIONS_TOKEN_FILE`. `WWW-Authenticate` names Bearer and Basic.',
            remedy:
              'Send `Authorization: Bearer <token>` (or basic auth with the token as password).',
          },
          {
            codes: ['JOURNAL_FEED_OFF'],
            status: '404',
            meaning: '`/journal` with the feed off.',
            remedy: '`ONCE_JOURNAL_FEED=on` (with a token file).',
          },
          {
            codes: ['INVALID_QUERY'],
            status: '400',
            meaning: 'A `/journal` parameter out of range; the message names it.',
            remedy: 'Fix the parameter.',
          },
          {
            codes: ['NOT_OPEN'],
            status: '503',
            meaning: '`/journal` before the data directory is open.',
            remedy: 'Ask again.',
          },
          {
            codes: ['FEED_BUSY'],
            status: '503',
            meaning:
              '`ONCE_JOURNAL_FEED_WAITERS_MAX` long-polls (`wait_ms`) already wait. `Retry-After: 1`.',
            remedy: 'Ask again after the delay; raise the cap if many followers are expected.',
          },
        ],
      },
    ],
  },
  {
    title: 'Exactly-once HTTP answers',
    parts: [
      {
        text: 'What an `@Idempotent` route of a team\'s NestJS controller answers besides its own recorded\nresponses, as `{"code","message"}` (see [Exactly-once HTTP endpoints](../guides/exactly-once-http.md)).\nNone of them is journaled: the client fixes the request or retries it. A key reused for\nanother request is answered 422 `IDEMPOTENCY_KEY_REUSED` (see the refusals, above).',
      },
      {
        codes: [
          {
            codes: ['IDEMPOTENCY_KEY_MISSING'],
            status: '400',
            meaning: 'The request carries no `Idempotency-Key` header, and the route requires one.',
            remedy:
              'Send a new unique key (a UUID) with each new request, and the same key with its retries.',
          },
          {
            codes: ['IDEMPOTENCY_KEY_INVALID'],
            status: '400',
            meaning:
              'The `Idempotency-Key` is neither a quoted sf-string nor a bare key of printable ASCII, is empty, comes twice, or is longer than `http.keyMaxLength` (255 by default). The message says which.',
            remedy: 'Send one key of printable ASCII, quoted (`"…"`) or bare, within the length.',
          },
          {
            codes: ['IDEMPOTENCY_KEY_IN_FLIGHT'],
            status: '409',
            meaning:
              'A request with this key and this body is being applied now (journaled, not yet applied). `Retry-After: 1`.',
            remedy:
              "Retry after the delay: the retry gets the first request's response. A route declared `inFlight: 'wait'` answers that response instead.",
          },
        ],
      },
      {
        text: "A node that may not journal answers 503 with `Retry-After: 1`: `NOT_READY` while it opens,\nreplays or stops, `NOT_LEADER` on a cluster follower (with `Once-Leader`, the leader's\nadvertised address, when known), `ENGINE_UNAVAILABLE` when its journal failed. A refusal of\nthe apply step is answered with the route's `refusalStatus` (422) and its own code; a throw\nis answered 500 `HANDLER_FAILED`; both are recorded and replayed.",
      },
    ],
  },
  {
    title: 'Inside the node',
    parts: [
      {
        text: "Raised by a broken invariant or a call out of order: a bug, or a journal changed behind\nthe node's back. The node stops rather than fork its state from what a replay rebuilds.",
      },
      {
        codes: [
          {
            codes: ['APPLY_ORDER'],
            meaning: 'An entry arrived out of op order.',
            remedy: 'Report it with the log.',
          },
          {
            codes: ['TABLE_INVARIANT'],
            meaning: 'The client table was asked for something the journal order cannot produce.',
            remedy: 'Report it with the log.',
          },
          {
            codes: ['HTTP_KEY_TABLE_INVARIANT'],
            meaning:
              'The table of Idempotency-Keys was asked to record a key it holds, or out of op order.',
            remedy: 'Report it with the log.',
          },
          {
            codes: ['INVALID_ENTRY'],
            meaning: 'An entry draft breaks a field rule (also a refusal code, above).',
            remedy: 'Report it: the caller built a bad entry.',
          },
          {
            codes: ['JOURNAL_BUSY'],
            meaning: 'A truncation and an append overlapped.',
            remedy: 'Truncate stopped directories only.',
          },
          {
            codes: ['JOURNAL_CLOSED'],
            meaning: 'A journal operation after the store closed.',
            remedy: 'Nothing during a stop; otherwise report it.',
          },
          {
            codes: ['ENGINE_UNAVAILABLE'],
            meaning:
              'The node takes no writes: its journal failed, or it is stopping. Clients are answered NOT_READY.',
            remedy: 'See `JOURNAL_FAILED`; nothing during a stop.',
          },
        ],
      },
    ],
  },
  {
    title: 'Gateway answers',
    parts: [
      {
        text: "Raised in the session guards' pipeline and answered as protocol statuses or EVICTION\nframes ([PROTOCOL.md](../PROTOCOL.md#status-codes)):",
      },
      {
        meaningTitle: 'answered as',
        codes: [
          {
            codes: ['INVALID_REQUEST'],
            meaning: 'status INVALID_REQUEST',
            remedy: 'Fix the client; the message names the rule it broke.',
          },
          {
            codes: ['NOT_BOUND'],
            meaning: 'status NOT_BOUND',
            remedy: 'REGISTER, or resume with a token, then send again.',
          },
          {
            codes: ['EPOCH_AHEAD'],
            meaning: 'status EPOCH_AHEAD',
            remedy: 'A client bug: report it.',
          },
          {
            codes: ['SESSION_EVICTED'],
            meaning: 'an EVICTION frame naming the reason',
            remedy:
              'See the reason under [Protocol statuses and eviction reasons](#protocol-statuses-and-eviction-reasons).',
          },
        ],
      },
    ],
  },
  {
    title: 'Protocol statuses and eviction reasons',
    parts: [
      {
        text:
          "A reply's `status` and an EVICTION frame's reason, by their protocol names\n" +
          '([PROTOCOL.md](../PROTOCOL.md#status-codes) is the contract); `@once/sdk` rejects with\n' +
          'them as codes.',
      },
      {
        codes: [
          {
            codes: ['BAD_FRAME'],
            meaning: 'Framing, checksum or size check failed; the connection closes.',
            remedy:
              'Fix the client: it does not frame as [PROTOCOL.md](../PROTOCOL.md#frames) says.',
          },
          {
            codes: ['VERSION_UNSUPPORTED'],
            meaning: "The frame's `version` is not served; the connection closes.",
            remedy: 'Upgrade the client (or the node).',
          },
          {
            codes: ['INVALID_REQUEST'],
            meaning: 'A header or body rule of the protocol is broken.',
            remedy: 'Fix the client; the message names the rule.',
          },
          {
            codes: ['UNAUTHENTICATED'],
            meaning: 'REGISTER with bad credentials.',
            remedy: 'Ask the user for the right ones; repeated failures are rate-limited.',
          },
          {
            codes: ['NOT_BOUND'],
            meaning: 'A session-bound operation on a connection that holds no session.',
            remedy: 'REGISTER (or resume with a token) first.',
          },
          {
            codes: ['CLIENT_OWNED_BY_OTHER_USER'],
            meaning: "The client id belongs to another user's session.",
            remedy: 'Use a new client id.',
          },
          {
            codes: ['EPOCH_AHEAD'],
            meaning: "The frame's `session` is newer than the table's.",
            remedy: 'A client bug: report it.',
          },
          {
            codes: ['REQUEST_GAP'],
            meaning: 'The request number skips numbers.',
            remedy: 'Resend from the watermark + 1.',
          },
          {
            codes: ['REQUEST_CONFLICT'],
            meaning: 'The request number was used for a different body.',
            remedy: 'A client bug; never retry it under that number.',
          },
          {
            codes: ['ALREADY_APPLIED'],
            meaning: 'Applied, but its reply is no longer cached.',
            remedy: 'Treat it as done; its result is unknown.',
          },
          {
            codes: ['NOT_READY'],
            meaning:
              'The node is still replaying, shutting down, or (in a cluster) not the leader.',
            remedy: 'Retry the same frame later, or at the leader the reply names.',
          },
          {
            codes: ['NO_SESSION'],
            meaning:
              'EVICTION: no entry for the session (never registered, logged out, evicted or expired).',
            remedy: 'Register again; do not retry in-doubt requests under the new session.',
          },
          {
            codes: ['SESSION_TOO_LOW'],
            meaning: 'EVICTION: a newer REGISTER of this client id committed (fenced).',
            remedy: 'Another holder has the session: stop using this connection.',
          },
          {
            codes: ['EVICTED'],
            meaning: 'EVICTION: the table was full and this session had the oldest last commit.',
            remedy: 'Register again; raise `clientsMax` if it happens in normal load.',
          },
          {
            codes: ['SUPERSEDED'],
            meaning: 'EVICTION: another connection resumed this session.',
            remedy: 'Stop using this connection.',
          },
          {
            codes: ['LOGGED_OUT'],
            meaning: 'EVICTION: the session logged out, from another connection.',
            remedy: 'Register again if the client should go on.',
          },
          {
            codes: ['EXPIRED'],
            meaning:
              "EVICTION: the session was idle past the node's session lifetime (`sessionTtlMs`).",
            remedy: 'Register again; in-doubt requests are outcome unknown.',
          },
        ],
      },
    ],
  },
  {
    title: 'Clients: `@once/sdk`, `@once/nest-client`',
    parts: [
      { text: "Besides the protocol's names and the handlers' refusal codes:" },
      {
        codes: [
          {
            codes: ['OUTCOME_UNKNOWN'],
            meaning:
              'A command was sent and whether it was applied cannot be told: its session ended before the answer, or the client gave up.',
            remedy:
              'Do not resend it under a new session; settle it through the state or an idempotency key.',
          },
          {
            codes: ['REQUEST_TIMEOUT'],
            meaning:
              "The caller's promise gave up after `requestTimeoutMs`. With a request number the command was sent and may still be applied.",
            remedy: 'As for `OUTCOME_UNKNOWN` when it was sent; nothing was sent otherwise.',
          },
          {
            codes: ['CONNECT_FAILED'],
            meaning:
              "No session bound: no node reachable, or `reconnect.attemptsMax` ran out. `lastAnswer` keeps the last node's NOT_READY. Through `OnceClientProxy` the error is a `ProxyConnectError`: `code` is the socket's (`ECONNREFUSED`, …, as NestJS's TCP client gives it), this code is its `onceCode`.",
            remedy:
              'Check the addresses and the nodes; the message says what the last node answered.',
          },
          {
            codes: ['LEADER_NOT_TRUSTED'],
            meaning:
              'A follower named a leader the client does not connect to (not configured, not over verified TLS). Not connected to.',
            remedy:
              "List every node in `nodes`, connect with verified TLS, or set `trustLeaderHints: 'any'`.",
          },
          {
            codes: ['HTTP_OUTCOME_UNKNOWN'],
            meaning:
              "`idempotentRequest` / `IdempotentHttpClient`: every attempt (`attemptsMax`) ended without a final answer (network failures, attempt timeouts, 409, 429, 502, 503, 504), so whether the server applied the operation cannot be told. `key` is the key every attempt carried, `status` the last attempt's (none when it got no answer), `cause` the last network failure.",
            remedy:
              'Send the operation again later with the same `key`: the server applies it if no attempt was, or answers the first response again (`replayed: true`). A new key could apply it twice.',
          },
          {
            codes: ['CLIENT_CLOSED'],
            meaning: 'The client is closed; the request was not sent.',
            remedy: 'Connect a new client.',
          },
          {
            codes: ['INVALID_OPTIONS'],
            meaning:
              'An `OnceClient` option is not usable; or an `idempotentRequest` / `IdempotentHttpClient` option, key (printable ASCII) or header (`Idempotency-Key` is passed as `key`).',
            remedy: 'Fix the option the message names.',
          },
          {
            codes: ['OPTION_NAME_CONFLICT'],
            meaning:
              'An `OnceClient` (or `OnceClientProxy`) option was given under its name and its deprecated old name with different values (`inFlightMax` and `maxInFlight`, say). The message names both and their values.',
            remedy:
              'Give the new name only ([clients](../guides/clients.md)); an old name alone still works, with a warning.',
          },
          {
            codes: ['INVALID_PAYLOAD'],
            meaning:
              'The data is not JSON-serialisable, or too large for a frame. Nothing was sent.',
            remedy: 'Fix the data.',
          },
          {
            codes: ['INVALID_REPLY'],
            meaning: 'The node sent something the protocol does not allow.',
            remedy: 'Check that the address is a once node of a compatible version.',
          },
          {
            codes: ['IDENTITY_FILE_WRITE'],
            meaning: 'The identity file could not be written; the client stops.',
            remedy: "Fix the file's directory or disk.",
          },
          {
            codes: ['IDENTITY_FILE_CORRUPT'],
            meaning: 'The identity file cannot be read as one; the SDK does not guess.',
            remedy: 'Decide whether to delete it (its in-doubt commands are then unknown).',
          },
          {
            codes: ['SDK_INVARIANT'],
            meaning: "The SDK's own invariant broke.",
            remedy: 'Report it.',
          },
          {
            codes: ['EVENT_UNSUPPORTED'],
            meaning: '`OnceClientProxy.on()` of an event it never emits.',
            remedy: "Use `'connect'`, `'close'`, `'error'`, or `unwrap<OnceClient>().events$`.",
          },
        ],
      },
    ],
  },
  {
    title: 'Users: `@once/users`',
    parts: [
      { text: 'Refusals of the `users.*` commands, committed like any reply.' },
      {
        codes: [
          {
            codes: ['INVALID_ARGUMENT'],
            meaning:
              '`users.create` or `users.changePassword` got data of the wrong shape, or a username that is not 1 to 64 letters, digits, dots, dashes or underscores.',
            remedy: 'Send the shape the message names.',
          },
          {
            codes: ['USER_EXISTS'],
            meaning: '`users.create` of a username that exists.',
            remedy: 'Pick another username; the existing user is unchanged.',
          },
          {
            codes: ['INVALID_CREDENTIALS'],
            meaning: '`users.changePassword` with a wrong current password (or a disabled user).',
            remedy: 'Ask the user for the current password.',
          },
        ],
      },
    ],
  },
  {
    title: 'The wire codecs: `@once/protocol`',
    parts: [
      {
        text: "Mistakes of the calling code, thrown by `@once/protocol`'s encoders as `ProtocolError`; bytes from a peer never throw (the decoder returns a verdict instead).",
      },
      {
        codes: [
          {
            codes: ['FIELD_OUT_OF_RANGE'],
            meaning: 'A header field given to the encoder does not fit its wire width.',
            remedy: 'Fix the caller: the message names the field and its range.',
          },
          {
            codes: ['FRAME_TOO_LARGE'],
            meaning: 'A frame would not fit the u32 size field.',
            remedy: 'Send a smaller body.',
          },
          {
            codes: ['SHORT_HEADER'],
            meaning: 'Fewer than 128 bytes were given as a header.',
            remedy: 'Fix the caller: pass a whole header.',
          },
          {
            codes: ['SIZE_MISMATCH'],
            meaning: "A frame's bytes do not match its size field.",
            remedy: 'Fix the caller: pass the whole frame.',
          },
          {
            codes: ['INVALID_RESUME_TOKEN'],
            meaning: 'A resume token of the wrong length was given to the encoder.',
            remedy: 'Pass the token the node issued, unchanged.',
          },
          {
            codes: ['INVALID_NODE_SECRET'],
            meaning: 'A node secret of the wrong size was given.',
            remedy: 'Pass the 32-byte secret of the data directory.',
          },
          {
            codes: ['INVALID_OPTION'],
            meaning: 'A codec option is out of range (a frame size limit, say).',
            remedy: 'Fix the option the message names.',
          },
        ],
      },
    ],
  },
  {
    title: 'Test harness: `@once/testing`',
    parts: [
      {
        codes: [
          {
            codes: ['SERVICE_START'],
            meaning:
              'A service child process did not come up: no service named, it exited, or it was not ready in time.',
            remedy:
              "Read the child's output in the message; give it a longer start timeout on a loaded machine.",
          },
          {
            codes: ['NATS_SERVER_MISSING'],
            meaning: '`nats-server` is not installed.',
            remedy: 'Install it as the message says (`npm run test:e2e` does it where it can).',
          },
          {
            codes: ['NATS_START'],
            meaning:
              'A NATS server did not become ready, or exited while starting; its output is in the message.',
            remedy: 'Read its output: usually a port in use or a store directory it cannot write.',
          },
          {
            codes: ['RAW_CLIENT_TIMEOUT'],
            meaning: '`RawClient` waited in vain for a frame.',
            remedy: 'The node did not answer: check what the test sent, and the service log.',
          },
          {
            codes: ['RAW_CLIENT_CLOSED'],
            meaning: "`RawClient`'s connection closed while a frame was awaited.",
            remedy: 'The node closed it (a BAD_FRAME, a limit, a stop): check the service log.',
          },
        ],
      },
    ],
  },
  {
    title: 'The `once` CLI',
    parts: [
      {
        codes: [
          {
            codes: ['NO_DATA_DIR'],
            meaning: 'No data directory at the path (`-d`); the CLI never creates one.',
            remedy: 'Give the path of an existing data directory.',
          },
          {
            codes: ['DATA_DIR_IN_USE'],
            meaning: 'The directory belongs to a running node.',
            remedy: 'Stop the node, or ask it with `once status`.',
          },
          {
            codes: ['NO_APP_MODULE', 'APP_MODULE_UNLOADABLE', 'APP_MODULE_INVALID'],
            meaning:
              "Replaying needs the service's modules; none was given, it cannot be loaded, or it has no static `register(options)` (exit 2).",
            remedy:
              'Give `--app FILE[#Export]` or `ONCE_APP_MODULE`, the built module of your service.',
          },
          {
            codes: ['SNAPSHOT_DIFFERS'],
            meaning: '`verify`: the replay differs from the newest snapshot.',
            remedy:
              'The code does not replay what it committed: see [Changing your code](../guides/changing-your-code.md#when-a-bump-was-forgotten).',
          },
          {
            codes: ['NO_SESSION', 'AMBIGUOUS_CLIENT'],
            meaning: '`sessions show`: no session of that client, or a prefix of several.',
            remedy: 'Give more of the client id (`once sessions list` lists them).',
          },
          {
            codes: ['NO_SUCH_OP'],
            meaning: "`journal show`: the op is beyond the journal's end.",
            remedy: "Give an op up to the journal's end (`once journal tail -n 1` shows the last).",
          },
          {
            codes: ['NODE_UNREACHABLE', 'BAD_ANSWER'],
            meaning: '`status`, `journal tail`: no answer, or not the once protocol.',
            remedy: "Check the address and port: the node's client port, not another service.",
          },
          {
            codes: ['JOURNAL_FEED_OFF', 'FOLLOW_NEEDS_METRICS_URL', 'NOT_OPEN', 'INVALID_URL'],
            meaning:
              '`journal tail` of a running node: the feed is off, `--follow` was given without `--metrics-url`, the node is not open yet, or the URL does not parse.',
            remedy:
              'Turn on `ONCE_JOURNAL_FEED`, give `--metrics-url http://host:port`, or wait for the node.',
          },
          {
            codes: ['METRICS_UNREACHABLE', 'METRIC_MISSING'],
            meaning: '`status --metrics-url`: the scrape failed, or lacks the sessions gauge.',
            remedy:
              "Give the node's operations listener (`ONCE_METRICS_PORT`), not another endpoint.",
          },
          {
            codes: ['UNAUTHORIZED', 'HOST_NOT_ALLOWED', 'FEED_BUSY'],
            meaning:
              '`journal tail --metrics-url`: no or a wrong credential, a host name the listener does not allow, or too many long-polls.',
            remedy:
              "Give `--operations-token-file`, use the node's IP, or wait (retried by `--follow`).",
          },
          {
            codes: ['TOKEN_FILE_UNREADABLE'],
            meaning:
              '`--operations-token-file` (or `ONCE_OPERATIONS_TOKEN_FILE`) names a file that cannot be read, or is empty (exit 2).',
            remedy: 'Give a readable file holding the token.',
          },
          {
            codes: ['USAGE'],
            meaning: 'An option out of range or missing; the message names it (exit 2).',
            remedy: 'Fix the option (`once <command> --help`).',
          },
          {
            codes: ['INTERNAL'],
            meaning: 'Something the CLI did not expect; the message says what (exit 1).',
            remedy: 'Report it, with the message.',
          },
        ],
      },
    ],
  },
  {
    title: 'No longer raised',
    parts: [
      {
        codes: [
          {
            codes: ['STATE_MISMATCH'],
            meaning:
              'Raised by builds before state versions where `STATE_NOT_PROVIDED` is raised now; a snapshot that lacks a state is no longer an error.',
            remedy: 'Nothing: upgrade.',
          },
        ],
      },
    ],
  },
];

/** Every code the catalogue lists, in order. */
export function cataloguedCodes(sections: readonly ErrorSection[] = ERROR_SECTIONS): string[] {
  return sections.flatMap((section) =>
    section.parts.flatMap((part) =>
      'codes' in part ? part.codes.flatMap((entry) => entry.codes) : [],
    ),
  );
}
