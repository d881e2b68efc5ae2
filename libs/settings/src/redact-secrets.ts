/** What a redacted secret is replaced with. */
export const REDACTED = '***';

/**
 * The credentials of a URL's authority (`scheme://user:password@`, or a
 * token as `scheme://token@`), up to the last `@` before the path: every
 * byte of them is a secret, the user name included (NATS takes a token
 * where the user name would be).
 */
const URL_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)[^\s/?#"'<>]*@/gi;

/**
 * `text` with every URL's credentials and every one of `secrets` replaced by
 * `***`: the one function that stands between a NATS address, a NATS error
 * or a setting's value and a log line or an error message. Cheap and pure,
 * so it is applied to every line that may carry one, not only to the ones
 * known to. A secret is also found percent-encoded, as it is written in a
 * URL; empty secrets are ignored.
 *
 * @example redactSecrets('nats://once:s3cret@n1:4222') === 'nats://***@n1:4222'
 */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let redacted = text.replace(URL_USERINFO, `$1${REDACTED}@`);
  // Longest first: a secret that contains another is replaced whole.
  const forms = secrets
    .flatMap((secret) => (secret === '' ? [] : [secret, encodeURIComponent(secret)]))
    .sort((a, b) => b.length - a.length);
  for (const form of forms) redacted = redacted.split(form).join(REDACTED);
  return redacted;
}
