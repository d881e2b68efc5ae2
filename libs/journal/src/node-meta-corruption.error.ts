/**
 * The meta record is unreadable, or missing although the journal holds
 * entries. Refusing to open is the only safe answer: recreating it would mint a
 * new node secret fingerprint for an existing journal.
 */
export class NodeMetaCorruptionError extends Error {
  readonly code = 'META_CORRUPT';
  override readonly name = 'NodeMetaCorruptionError';

  constructor(
    readonly dir: string,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(`meta record of data directory ${dir} is corrupt: ${reason}`, options);
  }
}
