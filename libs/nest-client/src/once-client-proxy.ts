import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import { OnceClient, type OnceClientOptions } from '@once/sdk';

/** Options of `OnceClientProxy`: the SDK's, plus which patterns are reads. */
export interface OnceClientProxyOptions extends OnceClientOptions {
  /**
   * Patterns sent as QUERY (served from current state, not journaled). Every
   * other pattern is a replicated COMMAND, applied exactly once. A pattern
   * object `{ query: 'ledger.balance' }` is a query too.
   */
  readonly queries?: readonly string[];
}

/** A pattern as `client.send` receives it. */
type Pattern = string | { readonly query: string } | { readonly cmd: string };

/**
 * The once SDK as a NestJS `ClientProxy`:
 *
 * ```ts
 * ClientsModule.register([
 *   { name: 'LEDGER', customClass: OnceClientProxy, options: { port: 7700, username, password, queries: ['ledger.balance'] } },
 * ])
 * …
 * this.ledger.send('ledger.deposit', { account, amount }) // exactly once, across reconnects and node crashes
 * ```
 *
 * `send` emits the command's result and completes; a committed refusal
 * errors with `CommandRefusedError` (its `code` is the handler's), a request
 * whose outcome cannot be known errors with `OutcomeUnknownError`. `emit`
 * (events) is exactly-once too: it completes when the command committed.
 * A subscription cannot cancel a command: once sent it is settled with the
 * node whether or not anyone still listens.
 */
export class OnceClientProxy extends ClientProxy {
  private client: OnceClient | undefined;
  private connecting: Promise<OnceClient> | undefined;
  private readonly queries: ReadonlySet<string>;

  constructor(private readonly options: OnceClientProxyOptions) {
    super();
    this.queries = new Set(options.queries ?? []);
  }

  connect(): Promise<OnceClient> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= OnceClient.connect(this.options).then(
      (client) => {
        this.client = client;
        return client;
      },
      (error: unknown) => {
        this.connecting = undefined;
        throw error;
      },
    );
    return this.connecting;
  }

  async close(): Promise<void> {
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    this.connecting = undefined;
    await client?.close();
  }

  unwrap<T>(): T {
    if (!this.client) throw new Error('OnceClientProxy is not connected; call connect() first');
    return this.client as T;
  }

  protected publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    this.run(packet).then(
      (response) => callback({ response, isDisposed: true }),
      (err: unknown) => callback({ err, isDisposed: true }),
    );
    return () => undefined;
  }

  protected dispatchEvent<T = unknown>(packet: ReadPacket): Promise<T> {
    return this.run(packet) as Promise<T>;
  }

  private async run(packet: ReadPacket): Promise<unknown> {
    const client = await this.connect();
    const { name, query } = this.classify(packet.pattern as Pattern);
    return query ? client.query(name, packet.data) : client.command(name, packet.data);
  }

  private classify(pattern: Pattern): { name: string; query: boolean } {
    if (typeof pattern === 'string') return { name: pattern, query: this.queries.has(pattern) };
    if ('query' in pattern && typeof pattern.query === 'string')
      return { name: pattern.query, query: true };
    if ('cmd' in pattern && typeof pattern.cmd === 'string')
      return { name: pattern.cmd, query: this.queries.has(pattern.cmd) };
    throw new TypeError(
      `a once pattern is a string, { cmd } or { query }: ${JSON.stringify(pattern)}`,
    );
  }
}
