/** Who sends a request, as an `@Idempotent` route scopes its keys. */
export interface HttpPrincipal {
  /**
   * The principal's name in the key's scope (`user 7`): two principals'
   * keys never meet. Requests without a principal share the scope
   * `anonymous`.
   */
  readonly name: string;
  /** The user id the journal entry carries (`ctx.userId` at apply); 0 when none fits. */
  readonly userId: number;
}

/** The scope of requests that carry no principal. */
export const ANONYMOUS: HttpPrincipal = Object.freeze({ name: 'anonymous', userId: 0 });

/** The largest user id the journal's entry header holds. */
const MAX_USER_ID = 0xffff_ffff;

/**
 * The default principal: `request.user`, where authentication middleware
 * and Passport put it. A string or a number is the user's id; an object
 * names it by `id`, `sub` (a JWT's subject) or `userId`, in that order.
 * The journal's user id is that id when it is a whole number from 1 to
 * 2^32-1, and 0 otherwise (the scope still tells principals apart).
 */
export function principalOfRequestUser(request: unknown): HttpPrincipal {
  const user = (request as { user?: unknown } | null)?.user;
  const id = idOf(user);
  if (id === undefined) return ANONYMOUS;
  const numeric = typeof id === 'number' ? id : /^[1-9][0-9]{0,9}$/.test(id) ? Number(id) : NaN;
  const userId = Number.isInteger(numeric) && numeric >= 1 && numeric <= MAX_USER_ID ? numeric : 0;
  return { name: `user ${String(id)}`, userId };
}

function idOf(user: unknown): string | number | undefined {
  if (user === null || typeof user !== 'object') return plainId(user);
  for (const field of ['id', 'sub', 'userId']) {
    const value = plainId((user as Record<string, unknown>)[field]);
    if (value !== undefined) return value;
  }
  return undefined;
}

function plainId(value: unknown): string | number | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  return undefined;
}
