import { Logger } from '@nestjs/common';
import { UnsupportedEventError } from './proxy-errors';

/**
 * The events of OnceClientProxy (`client.on(event, callback)`), named as
 * NestJS's TCP client names the socket events they stand for:
 * - `connect`: a session is bound (the first connect, a resume after a
 *   disconnect, a fresh session after a lost one): requests flow;
 * - `close`: the connection is gone (dropped, the client closed, or a
 *   connect failed, after its `error`); after a drop the SDK reconnects by
 *   itself and resends what was in doubt;
 * - `error`: requests fail for a transport reason: a connect that failed
 *   (ProxyConnectError, UnauthenticatedError, ...), or a client that gave up
 *   for good (ProxyConnectError after `reconnect.attemptsMax`, ...). A drop the SDK
 *   recovers from is a `close`, not an `error`: nothing failed.
 */
export interface OnceClientProxyEvents {
  connect: () => void;
  close: () => void;
  error: (error: Error) => void;
}

export type OnceClientProxyEvent = keyof OnceClientProxyEvents;

const SUPPORTED: readonly OnceClientProxyEvent[] = ['connect', 'close', 'error'];

/**
 * The listeners of one proxy. Unlike a TCP client's, whose listeners belong
 * to one socket and are gone after a reconnect, they stay for the proxy's
 * whole life. A listener that throws is logged; the others still run.
 */
export class ProxyListeners {
  private readonly logger = new Logger('OnceClientProxy');
  private readonly listeners = new Map<OnceClientProxyEvent, Array<(...args: never[]) => void>>();

  /** Adds `callback`; throws {@link UnsupportedEventError} for an event that is never emitted. */
  add(event: string, callback: unknown): void {
    if (!SUPPORTED.includes(event as OnceClientProxyEvent)) {
      throw new UnsupportedEventError(event, SUPPORTED);
    }
    if (typeof callback !== 'function') {
      throw new TypeError(`on('${event}', callback): callback must be a function`);
    }
    const name = event as OnceClientProxyEvent;
    const list = this.listeners.get(name) ?? [];
    list.push(callback as (...args: never[]) => void);
    this.listeners.set(name, list);
  }

  emit<E extends OnceClientProxyEvent>(
    event: E,
    ...args: Parameters<OnceClientProxyEvents[E]>
  ): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) {
      try {
        (listener as (...given: unknown[]) => void)(...args);
      } catch (error) {
        this.logger.error(
          `a '${event}' listener threw`,
          error instanceof Error ? error.stack : error,
        );
      }
    }
  }
}
