/**
 * The name and password of HTTP basic credentials (RFC 7617): base64 of
 * `name:password`, split at the first colon (a password may hold more).
 * Undefined when the text is not base64 or holds no colon. Whether an empty
 * name will do is the caller's rule: the client API's users need a name, the
 * operations listener reads only the password (its token).
 */
export function decodeBasicCredentials(
  base64: string,
): { name: string; password: string } | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) return undefined;
  const decoded = Buffer.from(base64, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { name: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
