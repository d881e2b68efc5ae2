export { JetStreamJournal, type StreamJournalPort } from './jetstream-journal';
export { type JetStreamJournalOptions } from './jetstream-journal-options';
export { clusterConfigBucket } from './cluster-config';
export { ClusterConfigCorruptionError } from './cluster-config-corruption.error';
export { JournalFencedError } from './journal-fenced.error';
export { JournalStreamMismatchError } from './journal-stream-mismatch.error';
export {
  JournalHeader,
  MESSAGE_FORMAT,
  type StoredEntries,
  decodeGroupMessage,
  encodeGroupMessage,
} from './journal-message';
export { GROUP_MAC_HEADER, GroupAuthenticator, type GroupPosition } from './group-authenticator';
export { JournalGroupUnverifiedError } from './journal-group-unverified.error';
