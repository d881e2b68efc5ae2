import { type ClientEntry } from './client-entry';

/**
 * The eviction order of PROTOCOL.md: ascending latestCommitOp, ties by ascending client
 * id (fixed-width hex, so string order is numeric order). It uses only values from the
 * log, so replay evicts the same entry. Live commits have distinct ops; ties can only
 * come from a restored snapshot.
 */
export function compareEvictionOrder(a: ClientEntry, b: ClientEntry): number {
  if (a.latestCommitOp !== b.latestCommitOp) return a.latestCommitOp - b.latestCommitOp;
  return a.client < b.client ? -1 : a.client > b.client ? 1 : 0;
}
