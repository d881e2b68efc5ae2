import { checksumInto, checksumMatches, readU64, writeU64 } from '@once/protocol/internal';
import { bufferView } from './buffer-view';

/**
 * One stored snapshot as `listSnapshots` reports it: its payload, or why it
 * cannot be used. A bad snapshot is an error record, never a throw, because the
 * caller's answer to it is simply "try the next older one, or replay from 1".
 * `op` is the op of the key (NaN in the error record of a key that is not an
 * op key at all).
 */
export type SnapshotRecord =
  | { readonly op: number; readonly payload: Buffer }
  | { readonly op: number; readonly error: string };

/**
 * Value layout: [checksum 16][op u64 LE][payload]; the checksum (XXH3-128)
 * covers bytes 16..end, the op repeats the key so a value moved under another
 * key is caught.
 */
export const SnapshotOffset = { checksum: 0, op: 16, payload: 24 } as const;

const CHECKSUMMED_FROM = SnapshotOffset.op;

/** Encodes a snapshot of the state after applying `op`; one Buffer allocation. */
export function encodeSnapshot(op: number, payload: Uint8Array): Buffer {
  const bytes = Buffer.allocUnsafe(SnapshotOffset.payload + payload.byteLength);
  writeU64(bytes, SnapshotOffset.op, op);
  bytes.set(payload, SnapshotOffset.payload);
  checksumInto(bytes.subarray(CHECKSUMMED_FROM), bytes, SnapshotOffset.checksum);
  return bytes;
}

/**
 * Verifies a stored snapshot found under the key of `op`. The payload is a
 * zero-copy subarray of `bytes`.
 */
export function decodeSnapshot(op: number, bytes: Uint8Array): SnapshotRecord {
  const view = bufferView(bytes);
  if (view.byteLength < SnapshotOffset.payload) {
    return {
      op,
      error: `snapshot at op ${op} is truncated: ${view.byteLength} bytes, shorter than the ${SnapshotOffset.payload}-byte header`,
    };
  }
  if (!checksumMatches(view.subarray(CHECKSUMMED_FROM), view, SnapshotOffset.checksum)) {
    return { op, error: `snapshot at op ${op} is corrupt: checksum mismatch` };
  }
  const storedOp = readU64(view, SnapshotOffset.op);
  if (storedOp !== op) {
    return { op, error: `snapshot at op ${op} is corrupt: it records op ${storedOp}` };
  }
  return { op, payload: view.subarray(SnapshotOffset.payload) };
}
