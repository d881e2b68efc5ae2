/** The request header that carries the key (matched case-insensitively, as HTTP does). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** The longest key accepted when the application sets none (`OnceHttpOptions.keyMaxLength`). */
export const DEFAULT_KEY_MAX_LENGTH = 255;

/** What an `Idempotency-Key` header says. */
export type IdempotencyKeyReading =
  | { readonly kind: 'key'; readonly key: string }
  | { readonly kind: 'missing' }
  | { readonly kind: 'invalid'; readonly reason: string };

/**
 * Reads the `Idempotency-Key` header's value(s) as a request gives them.
 *
 * The IETF draft ("The Idempotency-Key HTTP Header Field") makes the value
 * a Structured Field string (RFC 8941 `sf-string`: `"8e03978e-..."`); Stripe
 * and most clients send the key bare (`8e03978e-...`). Both are read, so a
 * client of either school is served: an sf-string is unquoted (with its
 * `\"` and `\\` escapes), a bare key is taken as it is. The key is the
 * unquoted text, so `"abc"` and `abc` are the same key.
 *
 * Refused as invalid: an empty key; characters outside printable ASCII
 * (what an sf-string allows); in a bare key, a space, a quote, a backslash
 * or a comma (a comma is how HTTP joins two headers: two keys are refused
 * rather than one picked); an sf-string with anything after its closing
 * quote, or not closed; a key longer than `maxLength` characters.
 */
export function readIdempotencyKey(
  header: string | readonly string[] | undefined,
  maxLength: number = DEFAULT_KEY_MAX_LENGTH,
): IdempotencyKeyReading {
  if (header === undefined) return { kind: 'missing' };
  if (typeof header !== 'string') {
    if (header.length === 0) return { kind: 'missing' };
    if (header.length > 1) return invalid('the request carries more than one Idempotency-Key');
    return readIdempotencyKey(header[0], maxLength);
  }
  // RFC 8941 parsing discards leading and trailing spaces.
  const text = header.replace(/^ +| +$/g, '');
  if (text === '') return invalid('the Idempotency-Key is empty');
  const read = text.startsWith('"') ? readSfString(text) : readBareKey(text);
  if (read.kind !== 'key') return read;
  if (read.key.length === 0) return invalid('the Idempotency-Key is empty');
  if (read.key.length > maxLength) {
    return invalid(
      `the Idempotency-Key is ${read.key.length} characters long; at most ${maxLength} are accepted`,
    );
  }
  return read;
}

/** RFC 8941 section 4.2.5, the whole field being one sf-string. */
function readSfString(text: string): IdempotencyKeyReading {
  let key = '';
  for (let i = 1; i < text.length; i++) {
    const char = text[i];
    const code = char.charCodeAt(0);
    if (char === '\\') {
      const next = text[++i];
      if (next !== '"' && next !== '\\') {
        return invalid('the Idempotency-Key string has a backslash that escapes neither " nor \\');
      }
      key += next;
    } else if (char === '"') {
      if (i !== text.length - 1) {
        return invalid('the Idempotency-Key has text after its closing quote (one key only)');
      }
      return { kind: 'key', key };
    } else if (code < 0x20 || code > 0x7e) {
      return invalid('the Idempotency-Key holds a character outside printable ASCII');
    } else {
      key += char;
    }
  }
  return invalid('the Idempotency-Key string has no closing quote');
}

/** A key sent without quotes, Stripe style: printable ASCII, no space, quote, backslash or comma. */
function readBareKey(text: string): IdempotencyKeyReading {
  if (!/^[\x21-\x7e]+$/.test(text)) {
    return invalid('the Idempotency-Key holds a space or a character outside printable ASCII');
  }
  if (/["\\,]/.test(text)) {
    return invalid(
      'the Idempotency-Key holds a quote, a backslash or a comma; send it as a quoted string',
    );
  }
  return { kind: 'key', key: text };
}

function invalid(reason: string): IdempotencyKeyReading {
  return { kind: 'invalid', reason };
}
