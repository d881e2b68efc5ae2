import { isIP } from 'node:net';

/** Host names that always mean this machine. */
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** What {@link hostAllowed} accepts besides IP addresses and loopback names. */
export interface HostAllowlist {
  /** The listener's port: a loopback or IP Host that names a port must name this one. */
  readonly port: number;
  /**
   * Configured names (`operationsAllowedHosts`), lower case: `name` (any
   * port) or `name:port`. Empty: no name but `localhost`.
   */
  readonly names: readonly string[];
}

/**
 * Whether the operations listener answers a request whose `Host` header is
 * `host`: the defence against DNS rebinding, where a page of
 * `http://evil.example:9464` is made to resolve to 127.0.0.1 and a browser
 * on this machine reads the listener as that origin. Such a request carries
 * the attacker's name in `Host`, so only names the operator vouched for are
 * answered: `localhost`, IP literals (an IP origin is never a rebound name:
 * its page is this listener's own), and the allowlist. A request without a
 * `Host` (HTTP/1.0 tools) is answered: a browser always sends one.
 */
export function hostAllowed(host: string | undefined, allow: HostAllowlist): boolean {
  if (host === undefined || host === '') return true;
  const lower = host.trim().toLowerCase();
  const { name, port } = splitHost(lower);
  if (name === undefined) return false;
  if (allow.names.includes(lower) || allow.names.includes(name)) return true;
  const bare = name.startsWith('[') ? name.slice(1, -1) : name;
  if (LOOPBACK_NAMES.has(name) || isIP(bare) !== 0) {
    return port === undefined || port === allow.port;
  }
  return false;
}

/** `name[:port]` split; name undefined when the header is not one. */
function splitHost(host: string): { name?: string; port?: number } {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(host);
  if (!match) return {};
  return { name: match[1], port: match[2] === undefined ? undefined : Number(match[2]) };
}

/** The allowlist setting's names, trimmed and lower-cased. */
export function allowedHostsOf(setting: string | undefined): string[] {
  return (setting ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name.length > 0);
}
