import { type ClusterKeyring } from '../key';
import { JournalGroupUnverifiedError } from './journal-group-unverified.error';

/** Header of a journal message carrying its MAC (base64 of HMAC-SHA256). */
export const GROUP_MAC_HEADER = 'Once-Mac';

/** Where a group sits in the stream: what its MAC binds it to, with its bytes. */
export interface GroupPosition {
  /** The stream sequence the message is stored at. */
  readonly seq: number;
  readonly firstOp: number;
  readonly lastOp: number;
}

/**
 * Signs and verifies the journal groups of one stream. The MAC, one per
 * group (not per entry), covers the stream's name, the message's stream
 * sequence, its first and last op and the payload: a group lifted from one
 * cluster, sequence or op range does not verify at another, and every
 * byte of its entries is covered. The headers other than these carry nothing
 * a reader trusts.
 */
export class GroupAuthenticator {
  readonly #prefix: Buffer;

  constructor(
    private readonly keyring: ClusterKeyring,
    readonly stream: string,
    /**
     * Messages at or below this sequence may carry no MAC (written by a
     * build without cluster keys, before the cluster was upgraded): they
     * are accepted as they are. 0: every message must verify. A message
     * that carries a MAC is always checked.
     */
    readonly unsignedThroughSeq: number = 0,
  ) {
    this.#prefix = Buffer.from(`once-group\0${stream}\0`, 'utf8');
  }

  /** The MAC header's value for `payload` at `position`. */
  sign(position: GroupPosition, payload: Uint8Array): string {
    return this.keyring.sign('journalGroup', this.#parts(position, payload)).toString('base64');
  }

  /**
   * Throws {@link JournalGroupUnverifiedError} unless `mac` (the header's
   * value) is the MAC of `payload` at `position` under one of the ring's keys.
   */
  verify(position: GroupPosition, payload: Uint8Array, mac: string | undefined): void {
    if (mac === undefined || mac === '') {
      if (position.seq <= this.unsignedThroughSeq) return;
      throw new JournalGroupUnverifiedError(
        position.firstOp,
        position.seq,
        `it carries no ${GROUP_MAC_HEADER} header`,
      );
    }
    const tag = Buffer.from(mac, 'base64');
    if (!this.keyring.verify('journalGroup', this.#parts(position, payload), tag, position.seq)) {
      throw new JournalGroupUnverifiedError(
        position.firstOp,
        position.seq,
        'its MAC does not match its bytes and position',
      );
    }
  }

  #parts(position: GroupPosition, payload: Uint8Array): Uint8Array[] {
    const where = Buffer.from(`${position.seq}\0${position.firstOp}\0${position.lastOp}\0`);
    return [this.#prefix, where, payload];
  }
}
