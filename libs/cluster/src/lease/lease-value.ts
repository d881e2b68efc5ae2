import { jsonRecordOf } from '../json-record';

/**
 * Who holds the cluster's lease, as the lease key's value says: the node's
 * id, the address its clients should use, and the term of its leadership.
 */
export interface LeaseHolder {
  /** The holder's node id (`ONCE_NODE_ID`). */
  readonly node: string;
  /** The holder's advertised `host:port` (`ONCE_ADVERTISE`); null when it advertises none. */
  readonly advertise: string | null;
  /**
   * The leadership's number: 1 for the first holder, one more at each
   * takeover; renewals keep it. Not a fence (the journal stream's expected
   * last sequence is): it names a leadership in logs, events and PING.
   */
  readonly term: number;
}

/** The largest term this codec writes or reads: any safe positive integer. */
const TERM_MAX = Number.MAX_SAFE_INTEGER;

/** The key's value: `{"node":…,"advertise":…,"term":…}` in UTF-8 JSON. */
export function encodeLeaseValue(holder: LeaseHolder): Uint8Array {
  const { term } = holder;
  if (!isTerm(term)) {
    throw new RangeError(
      `lease term must be an integer from 1 to ${TERM_MAX}, got ${String(term)}`,
    );
  }
  return Buffer.from(
    JSON.stringify({ node: holder.node, advertise: holder.advertise, term }),
    'utf8',
  );
}

/**
 * The holder a value names, or undefined when the value is not one this
 * codec writes (not JSON, a key missing or of the wrong type): the key is
 * taken by something the lease cannot read, and no node may claim to know
 * its holder.
 */
export function decodeLeaseValue(bytes: Uint8Array): LeaseHolder | undefined {
  const record = jsonRecordOf(bytes);
  if (!record) return undefined;
  const { node, advertise, term } = record;
  if (typeof node !== 'string' || node === '') return undefined;
  if (advertise !== null && typeof advertise !== 'string') return undefined;
  if (!isTerm(term)) return undefined;
  return { node, advertise, term };
}

/** True when `a` and `b` name the same leadership: node, address and term. */
export function sameHolder(a: LeaseHolder | undefined, b: LeaseHolder | undefined): boolean {
  return (
    a !== undefined &&
    b !== undefined &&
    a.node === b.node &&
    a.advertise === b.advertise &&
    a.term === b.term
  );
}

function isTerm(term: unknown): term is number {
  return typeof term === 'number' && Number.isSafeInteger(term) && term >= 1 && term <= TERM_MAX;
}
