/**
 * What a snapshot says of the keyed records at its op: a digest over every
 * record (order-independent, kept up to date by each write) and the number of
 * records of each map. The records themselves are in the data directory's
 * keyed sublevel, written with the snapshot.
 */
export interface KeyedStateMarker {
  /** 16 hex digits; `0000000000000000` when there is no record. */
  readonly digest: string;
  /** Records per map (`state/map`), maps with none left out, in name order. */
  readonly counts: ReadonlyArray<readonly [map: string, records: number]>;
}

export const EMPTY_KEYED_MARKER: KeyedStateMarker = Object.freeze({
  digest: '0000000000000000',
  counts: Object.freeze([]),
});

/** The digest's text: both 32-bit lanes as 8 hex digits each. */
export function digestHex(laneA: number, laneB: number): string {
  return (laneA >>> 0).toString(16).padStart(8, '0') + (laneB >>> 0).toString(16).padStart(8, '0');
}

/** Whether `marker` describes no record at all. */
export function isEmptyMarker(marker: KeyedStateMarker | undefined): boolean {
  return marker === undefined || marker.counts.length === 0;
}

/** Reads a marker back from its JSON; throws on anything else. */
export function parseKeyedMarker(json: string): KeyedStateMarker {
  const parsed = JSON.parse(json) as Partial<KeyedStateMarker>;
  if (
    typeof parsed.digest !== 'string' ||
    !/^[0-9a-f]{16}$/.test(parsed.digest) ||
    !Array.isArray(parsed.counts) ||
    !parsed.counts.every(
      (pair) =>
        Array.isArray(pair) &&
        typeof pair[0] === 'string' &&
        Number.isSafeInteger(pair[1]) &&
        (pair[1] as number) > 0,
    )
  ) {
    throw new Error('the keyed-state marker is unreadable');
  }
  return { digest: parsed.digest, counts: parsed.counts };
}
