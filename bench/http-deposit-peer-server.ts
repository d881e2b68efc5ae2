import { type BuildSnapshot } from './build-snapshot';
import { type HttpPeerKind } from './http-deposit-peer.module';
import { ServerChild } from './server-child';

/** An HTTP peer (http-deposit-peer.ts) as a child process on any free port of 127.0.0.1. */
export class HttpDepositPeerServer {
  private constructor(
    private readonly child: ServerChild,
    readonly kind: HttpPeerKind,
    readonly port: number,
  ) {}

  /**
   * Starts a peer of `kind` whose balances (and keys) live in the Redis on
   * `redisPort`. With `crashOnAccount`, the peer SIGKILLs itself right after a
   * deposit to that account moved the balance (crash comparisons). `port`
   * (default 0: any free one) lets a peer start again where callers retry.
   */
  static async start(
    build: BuildSnapshot,
    kind: HttpPeerKind,
    redisPort: number,
    options: { readonly crashOnAccount?: string; readonly port?: number } = {},
  ): Promise<HttpDepositPeerServer> {
    const port = String(options.port ?? 0);
    const args = ['--port', port, '--kind', kind, '--redis-port', String(redisPort)];
    if (options.crashOnAccount !== undefined)
      args.push('--crash-on-account', options.crashOnAccount);
    const { child, port: bound } = await ServerChild.spawnListening(
      build,
      'http-deposit-peer',
      args,
    );
    return new HttpDepositPeerServer(child, kind, bound);
  }

  /** The peer's base URL. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** SIGTERM: the application closes its connections. */
  stop(): Promise<void> {
    return this.child.kill('SIGTERM');
  }

  /** SIGKILL: the process dies where it is, as in a crash; resolves once it is gone (also when it already was). */
  crash(): Promise<void> {
    return this.child.kill('SIGKILL');
  }
}
