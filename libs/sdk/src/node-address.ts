import { isIP } from 'node:net';

/** Where a once node listens: a host name or IP address and a TCP port. */
export interface NodeAddress {
  /** Host name or IP address (IPv6 without brackets). */
  readonly host: string;
  /** TCP port, 1..65535. */
  readonly port: number;
}

/** Whether `port` is a TCP port a node can listen on. */
export function isPort(port: unknown): port is number {
  return typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65_535;
}

/**
 * `host:port` as people and nodes write it; an IPv6 host is bracketed
 * (`[::1]:7700`), so that the last colon always separates the port.
 */
export function formatNodeAddress({ host, port }: NodeAddress): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Reads `host:port` (or `[v6]:port`), the form a node advertises itself in;
 * `undefined` for anything else, so that a malformed address a node reports
 * is ignored rather than tried.
 */
export function parseNodeAddress(text: unknown): NodeAddress | undefined {
  if (typeof text !== 'string') return undefined;
  const colon = text.lastIndexOf(':');
  if (colon <= 0) return undefined;
  const portText = text.slice(colon + 1);
  if (!/^[0-9]{1,5}$/.test(portText)) return undefined;
  const port = Number(portText);
  if (!isPort(port)) return undefined;
  let host = text.slice(0, colon);
  if (host.startsWith('[') && host.endsWith(']')) {
    host = host.slice(1, -1);
    if (isIP(host) !== 6) return undefined;
  } else if (host.includes(':') || host.includes('[') || host.includes(']')) {
    return undefined; // an IPv6 address must be bracketed: its port would be ambiguous
  }
  if (host.length === 0 || /\s/.test(host)) return undefined;
  return { host, port };
}

/** Two addresses name the same node when host (case-insensitively) and port match. */
export function sameNodeAddress(a: NodeAddress, b: NodeAddress): boolean {
  return a.port === b.port && a.host.toLowerCase() === b.host.toLowerCase();
}
