import { type BuildSnapshot } from './build-snapshot';
import { type PgDepositVariant } from './pg-deposit-store';
import { ServerChild } from './server-child';

/** Which store a {@link DepositPeerServer} keeps its keys in, and where. */
export type DepositPeerStore =
  | { readonly kind: 'redis'; readonly port: number }
  | { readonly kind: 'pg'; readonly port: number; readonly variant: PgDepositVariant };

/** A durable peer (nest-deposit-peer.ts) as a child process on any free port. */
export class DepositPeerServer {
  private constructor(
    private readonly child: ServerChild,
    readonly port: number,
  ) {}

  static async start(build: BuildSnapshot, store: DepositPeerStore): Promise<DepositPeerServer> {
    const args = ['--port', '0', '--store', store.kind, '--store-port', String(store.port)];
    if (store.kind === 'pg') args.push('--pg-variant', store.variant);
    const { child, port } = await ServerChild.spawnListening(build, 'nest-deposit-peer', args);
    return new DepositPeerServer(child, port);
  }

  stop(): Promise<void> {
    return this.child.kill('SIGTERM');
  }
}
