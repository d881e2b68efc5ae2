/**
 * What the CLI prints in place of a credential. The journal holds what
 * clients sent (a password in `users.create`, a new one in a password
 * change) and replies may hold resume tokens: an operator inspecting a
 * session must never see, or paste into a ticket, any of them.
 */
export const REDACTED = '[redacted]';

/**
 * How deep a decoded body is copied for printing. A client may journal JSON
 * nested as deep as its frame allows (100,000 levels fit in 200 KB): no
 * printer, `JSON.stringify` included, recurses that far. Anything deeper is
 * printed as {@link TOO_DEEP}.
 */
export const BODY_DEPTH_MAX = 64;

/** What stands for a value nested deeper than {@link BODY_DEPTH_MAX}. */
export const TOO_DEEP = `[nested deeper than ${BODY_DEPTH_MAX} levels]`;

/**
 * Keys whose values look like credentials: passwords in any casing or
 * compound (`password`, `newPassword`, `currentPassword`), secrets, salts,
 * password hashes, session tokens, API and private keys, authorization
 * headers, card numbers and PINs. A safety net under the declarations
 * (`@Command`'s `sensitive` option), never the decision: no name list knows
 * every secret a module may hold, which is why undeclared command bodies
 * are withheld instead (see `entryView`).
 */
const CREDENTIAL_KEY =
  /pass(word)?|secret|salt|hash|token|credential|api[-_]?key|private[-_]?key|authori[sz]ation|card[-_]?number|^pin$|cvv|cvc/i;

/** True when a field named `key` looks like a credential (see {@link CREDENTIAL_KEY}). */
export function isCredentialKey(key: string): boolean {
  return CREDENTIAL_KEY.test(key);
}

/**
 * A copy of `value` (decoded JSON) with every credential-looking field's
 * value replaced by {@link REDACTED}, at any depth, inside arrays too, and
 * anything deeper than {@link BODY_DEPTH_MAX} replaced by {@link TOO_DEEP}.
 */
export function redactCredentials(value: unknown): unknown {
  return boundedCopy(value, isCredentialKey);
}

/**
 * A copy of decoded JSON `value` fit to print: the values of keys for which
 * `redact` holds replaced by {@link REDACTED}, containers nested deeper than
 * `depthMax` replaced by {@link TOO_DEEP}. Iterative (an explicit stack),
 * so no input depth can exhaust the call stack; values that are not plain
 * JSON containers are kept as they are.
 */
export function boundedCopy(
  value: unknown,
  redact: (key: string) => boolean,
  depthMax: number = BODY_DEPTH_MAX,
): unknown {
  if (!isContainer(value)) return value;
  if (depthMax < 1) return TOO_DEEP;
  const root = emptyLike(value);
  const pending: Array<{ source: object; target: object; depth: number }> = [
    { source: value, target: root, depth: 1 },
  ];
  const child = (field: unknown, depth: number): unknown => {
    if (!isContainer(field)) return field;
    if (depth >= depthMax) return TOO_DEEP;
    const copy = emptyLike(field);
    pending.push({ source: field, target: copy, depth: depth + 1 });
    return copy;
  };
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { source, target, depth } = next;
    if (Array.isArray(source)) {
      const list = target as unknown[];
      for (const item of source as unknown[]) list.push(child(item, depth));
      continue;
    }
    for (const [key, field] of Object.entries(source as Record<string, unknown>)) {
      // defineProperty: a "__proto__" key is data here, never the copy's prototype.
      Object.defineProperty(target, key, {
        value: redact(key) ? REDACTED : child(field, depth),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return root;
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function emptyLike(value: object): object {
  return Array.isArray(value) ? [] : {};
}
