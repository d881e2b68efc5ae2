/**
 * The node secret file does not belong to this data directory: it is missing
 * although the directory was initialized, it has the wrong size, or its
 * fingerprint differs from the one recorded in the meta record.
 *
 * Why refuse to start: resume tokens are HMACs under the secret; a different
 * secret silently invalidates every token clients hold (or, worse, a copied
 * secret makes tokens of another node valid here).
 */
export class NodeSecretMismatchError extends Error {
  readonly code = 'NODE_SECRET_MISMATCH';
  override readonly name = 'NodeSecretMismatchError';

  constructor(
    readonly secretFile: string,
    reason: string,
  ) {
    super(`node secret ${secretFile} does not match the data directory: ${reason}`);
  }
}
