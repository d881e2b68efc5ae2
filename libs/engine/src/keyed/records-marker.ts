import { type KeyedStateMarker, EMPTY_KEYED_MARKER, digestHex } from './keyed-state-marker';
import { hashRecord } from './record-hash';

/**
 * The marker of records as stored (key: map, NUL, key; value: JSON), computed
 * the way {@link KeyedStore} keeps it write by write: what verification
 * compares with a snapshot's marker, to check the records on disk are the
 * ones the snapshot describes.
 */
export async function markerOfRecords(
  records: AsyncIterable<readonly [key: Buffer, value: Buffer]>,
): Promise<KeyedStateMarker> {
  let digestA = 0;
  let digestB = 0;
  const counts = new Map<string, number>();
  for await (const [key, value] of records) {
    const full = key.toString('utf8');
    const [hashA, hashB] = hashRecord(full, value.toString('utf8'));
    digestA ^= hashA;
    digestB ^= hashB;
    const map = full.slice(0, full.indexOf('\u0000'));
    counts.set(map, (counts.get(map) ?? 0) + 1);
  }
  if (counts.size === 0 && digestA === 0 && digestB === 0) return EMPTY_KEYED_MARKER;
  return {
    digest: digestHex(digestA, digestB),
    counts: [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  };
}
