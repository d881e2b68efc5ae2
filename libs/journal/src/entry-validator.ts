import * as protocol from '@once/protocol';
import { InvalidEntryError } from './invalid-entry.error';
import { type EntryDraft, isEntryKind } from './journal-entry';

/**
 * The client id check, read from the package once: in the built CommonJS a named import from
 * another package is read through a getter of the package's index at every use, and validating an
 * entry runs per request.
 */
const { isClientId } = protocol;

/** Size of `requestChecksum`, a u128. */
const REQUEST_CHECKSUM_BYTES = 16;
const U32_MAX = 0xffff_ffff;

/**
 * Throws {@link InvalidEntryError} unless every field of `draft` can be encoded
 * exactly. Called before an op is assigned, so a bad draft leaves no hole.
 */
export function assertValidDraft(draft: EntryDraft): void {
  if (typeof draft !== 'object' || draft === null) {
    throw new InvalidEntryError('draft', 'is not an object');
  }
  if (typeof draft.kind !== 'number' || !isEntryKind(draft.kind)) {
    throw new InvalidEntryError('kind', `is not a known entry kind: ${String(draft.kind)}`);
  }
  if (!isClientId(draft.client)) {
    throw new InvalidEntryError(
      'client',
      `is not a client id (32 lowercase hex digits): ${String(draft.client)}`,
    );
  }
  assertSafeCount('session', draft.session);
  assertSafeCount('request', draft.request);
  if (!Number.isInteger(draft.userId) || draft.userId < 0 || draft.userId > U32_MAX) {
    throw new InvalidEntryError('userId', `is not a u32: ${String(draft.userId)}`);
  }
  if (
    !(draft.requestChecksum instanceof Uint8Array) ||
    draft.requestChecksum.byteLength !== REQUEST_CHECKSUM_BYTES
  ) {
    throw new InvalidEntryError('requestChecksum', `must be ${REQUEST_CHECKSUM_BYTES} bytes`);
  }
  if (!(draft.body instanceof Uint8Array)) {
    throw new InvalidEntryError('body', 'is not a Buffer');
  }
  if (draft.body.byteLength > U32_MAX) {
    throw new InvalidEntryError('body', `is longer than ${U32_MAX} bytes`);
  }
}

function assertSafeCount(field: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidEntryError(field, `is not a safe integer >= 0: ${String(value)}`);
  }
}
