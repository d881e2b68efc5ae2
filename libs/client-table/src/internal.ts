/**
 * `@once/client-table/internal`: the client table (per-client watermarks and
 * cached replies) for the sibling packages (`@once/engine`, `@once/framework`,
 * `@once/gateway`, `@once/cli`). Not covered by semver: it changes with the
 * packages of the same version, which are always installed together.
 *
 * @packageDocumentation
 * @internal
 */
export { ClientTable } from './client-table';
export { type ClientTableHeader } from './client-table-header';
export {
  CLIENT_ENTRY_RECORD_VERSION,
  decodeEntryRecord,
  encodeEntryRecord,
  type ClientEntryRecord,
} from './client-entry-record';
export { MAX_TABLE_LIMIT, type ClientTableOptions } from './client-table-options';
export { type ClientEntry } from './client-entry';
export { type CachedReply, type ReplyEncoder, type ReplyOwnership } from './cached-reply';
export { type CheckResult } from './check-result';
export { type RegisterResult } from './register-result';
export { type ApplicableResult } from './applicable-result';
