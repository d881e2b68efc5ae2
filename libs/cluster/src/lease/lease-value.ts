import { clusterNames } from '../cluster-names';
import { type ClusterKeyring } from '../key';
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

/**
 * What authenticates lease values: the cluster keyring and the key's scope
 * (its bucket and key), so a value signed for one cluster's lease does not
 * verify as another's.
 */
export interface LeaseSeal {
  readonly keyring: ClusterKeyring;
  /** `<bucket>/<key>`. */
  readonly scope: string;
}

/** The seal of cluster `clusterName`'s lease key `key`: its scope is `<bucket>/<key>`. */
export function leaseSeal(keyring: ClusterKeyring, clusterName: string, key: string): LeaseSeal {
  return { keyring, scope: `${clusterNames(clusterName).bucket}/${key}` };
}

/** A value read from the key: its holder, or why no holder can be taken from it. */
export type LeaseReading =
  | { readonly holder: LeaseHolder; readonly problem?: undefined }
  | {
      readonly holder: undefined;
      /** `unreadable`: not a value this codec writes; `unverified`: its MAC does not verify. */
      readonly problem: 'unreadable' | 'unverified';
    };

/**
 * The key's value: `{"node":…,"advertise":…,"term":…,"mac":…}` in UTF-8
 * JSON, `mac` the base64 HMAC-SHA256 (the cluster key's lease key) of the
 * scope, node, address and term: no node follows a holder, nor sends its
 * clients to an address, that a node with the cluster key did not write.
 */
export function encodeLeaseValue(holder: LeaseHolder, seal: LeaseSeal): Uint8Array {
  const { term } = holder;
  if (!isTerm(term)) {
    throw new RangeError(
      `lease term must be an integer from 1 to ${TERM_MAX}, got ${String(term)}`,
    );
  }
  const mac = seal.keyring.sign('lease', [signedBytes(seal, holder)]).toString('base64');
  return Buffer.from(
    JSON.stringify({ node: holder.node, advertise: holder.advertise, term, mac }),
    'utf8',
  );
}

/**
 * The holder a value names when it verifies; otherwise why not: the value
 * is not one this codec writes (not JSON, a key missing or of the wrong
 * type), or its MAC is missing or does not verify under the ring. Either
 * way no node may claim to know a holder from it.
 */
export function decodeLeaseValue(bytes: Uint8Array, seal: LeaseSeal): LeaseReading {
  const record = jsonRecordOf(bytes);
  if (!record) return { holder: undefined, problem: 'unreadable' };
  const { node, advertise, term, mac } = record;
  if (typeof node !== 'string' || node === '') return { holder: undefined, problem: 'unreadable' };
  if (advertise !== null && typeof advertise !== 'string') {
    return { holder: undefined, problem: 'unreadable' };
  }
  if (!isTerm(term)) return { holder: undefined, problem: 'unreadable' };
  const holder: LeaseHolder = { node, advertise, term };
  if (typeof mac !== 'string') return { holder: undefined, problem: 'unverified' };
  const tag = Buffer.from(mac, 'base64');
  if (!seal.keyring.verify('lease', [signedBytes(seal, holder)], tag)) {
    return { holder: undefined, problem: 'unverified' };
  }
  return { holder };
}

function signedBytes(seal: LeaseSeal, holder: LeaseHolder): Buffer {
  return Buffer.from(
    JSON.stringify(['once-lease', seal.scope, holder.node, holder.advertise, holder.term]),
    'utf8',
  );
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
