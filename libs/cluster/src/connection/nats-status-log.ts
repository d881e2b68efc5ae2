import { type NatsConnection, type Status } from '@nats-io/nats-core';
import { type EngineLogger } from '@once/engine/internal';
import { redactSecrets } from '@once/settings';
import { refusesCredentials } from './nats-auth-failed.error';

/** One line to log about the connection: its level, its text, and what repeats of it share. */
export interface NatsStatusLine {
  readonly level: 'log' | 'warn';
  readonly text: string;
  /** Lines of one key are logged once per `repeatMs`: a refused reconnect repeats every 250 ms. */
  readonly key: string;
}

/** Options of {@link NatsStatusLog}. */
export interface NatsStatusLogOptions {
  /** How long a line is not repeated, ms. Default 30 000 ms. */
  readonly repeatMs?: number;
  /** Secrets the lines must not carry (see `redactSecrets`). Default none. */
  readonly secrets?: readonly string[];
  /** Milliseconds now. Default `Date.now`. */
  readonly clock?: () => number;
}

/**
 * What a node's NATS connection goes through after start (lost, back, a
 * server's error such as refused credentials on a reconnect, lame duck
 * mode), said in the node's log instead of nothing: the client reconnects
 * for ever, and an operator must be able to see why the node is not serving.
 * Each line is redacted and logged at most once per `repeatMs`.
 */
export class NatsStatusLog {
  readonly #last = new Map<string, number>();
  readonly #repeatMs: number;
  readonly #secrets: readonly string[];
  readonly #clock: () => number;

  constructor(
    private readonly logger: EngineLogger,
    private readonly nodeId: string,
    options: NatsStatusLogOptions = {},
  ) {
    this.#repeatMs = options.repeatMs ?? 30_000;
    this.#secrets = options.secrets ?? [];
    this.#clock = options.clock ?? Date.now;
  }

  /** Logs every status of `connection` until it closes; never rejects. */
  async follow(connection: NatsConnection): Promise<void> {
    try {
      for await (const status of connection.status()) this.observe(status);
    } catch {
      // The iterator ends with the connection; nothing to report then.
    }
  }

  /** Logs `status` if it says something and was not said within `repeatMs`. */
  observe(status: Status): void {
    const line = describeNatsStatus(status, this.nodeId);
    if (!line) return;
    const now = this.#clock();
    const last = this.#last.get(line.key);
    if (last !== undefined && now - last < this.#repeatMs) return;
    this.#last.set(line.key, now);
    this.logger[line.level](redactSecrets(line.text, this.#secrets));
  }
}

/** The line `status` is logged as, or undefined for the ones a log needs not carry. */
export function describeNatsStatus(status: Status, nodeId: string): NatsStatusLine | undefined {
  switch (status.type) {
    case 'disconnect':
      return {
        level: 'warn',
        text: `${nodeId}: lost its NATS connection to ${status.server}; reconnecting`,
        key: `disconnect ${status.server}`,
      };
    case 'reconnect':
      return {
        level: 'log',
        text: `${nodeId}: connected to NATS again, at ${status.server}`,
        key: `reconnect ${status.server}`,
      };
    case 'error': {
      const message = status.error.message;
      const refused = refusesCredentials(message);
      return {
        level: 'warn',
        text: refused
          ? `${nodeId}: the NATS servers refused this node's credentials (${message}) (NATS_AUTH_FAILED); it keeps reconnecting`
          : `${nodeId}: NATS reported: ${message}`,
        key: `error ${message}`,
      };
    }
    case 'staleConnection':
      return {
        level: 'warn',
        text: `${nodeId}: its NATS connection went stale (pings unanswered); reconnecting`,
        key: 'stale',
      };
    case 'ldm':
      return {
        level: 'log',
        text: `${nodeId}: NATS server ${status.server} is shutting down (lame duck mode)`,
        key: `ldm ${status.server}`,
      };
    default:
      return undefined;
  }
}
