/*
 * The engine's exactly-once HTTP types, as the design gives them. They are
 * declared here until @once/engine exports them, then imported from there.
 */

export interface HttpRequestDraft {
  readonly scope: string;
  readonly key: string;
  readonly fingerprint: Buffer;
  readonly userId: number;
  readonly pattern: string;
  readonly data: unknown;
  readonly status: number;
  readonly refusalStatus: number;
}

export interface HttpResponseRecord {
  readonly status: number;
  readonly body: Buffer;
  readonly op: number;
}

export type HttpSubmitResult =
  | { readonly kind: 'applied'; readonly response: HttpResponseRecord }
  | { readonly kind: 'replayed'; readonly response: HttpResponseRecord }
  | { readonly kind: 'mismatch' }
  | { readonly kind: 'in-flight' };
