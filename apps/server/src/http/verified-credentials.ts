import { createHash } from 'node:crypto';
import { type AuthenticatedUser } from './basic-auth.guard';

/** How long a verified credential is believed without a new check, ms. */
export const VERIFIED_TTL_MS = 30_000;
/** How many verified credentials are remembered at once (the oldest goes first). */
export const VERIFIED_ENTRIES_MAX = 1_024;

/**
 * Credentials that verified lately, by the SHA-256 of their `Authorization`
 * header (the password itself is never kept): a changed password or a
 * disabled user takes effect within {@link VERIFIED_TTL_MS}. A credential that
 * failed is never remembered, so a wrong password always costs its scrypt.
 */
export class VerifiedCredentials {
  private readonly entries = new Map<string, { principal: AuthenticatedUser; untilMs: number }>();

  constructor(
    private readonly ttlMs = VERIFIED_TTL_MS,
    private readonly entriesMax = VERIFIED_ENTRIES_MAX,
    private readonly nowMs: () => number = () => performance.now(),
  ) {}

  get(header: string): AuthenticatedUser | undefined {
    const key = digest(header);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.nowMs() >= entry.untilMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.principal;
  }

  remember(header: string, principal: AuthenticatedUser): void {
    const key = digest(header);
    this.entries.delete(key);
    while (this.entries.size >= this.entriesMax) {
      this.entries.delete(this.entries.keys().next().value!);
    }
    this.entries.set(key, { principal, untilMs: this.nowMs() + this.ttlMs });
  }

  get size(): number {
    return this.entries.size;
  }
}

function digest(header: string): string {
  return createHash('sha256').update(header).digest('base64');
}
