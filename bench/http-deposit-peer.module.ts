import { type DynamicModule, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { NodeIdempotencyModule, StorageAdapterEnum } from '@node-idempotency/nestjs';
import { HTTP_BALANCES } from './http-deposit';
import { IdempotentHttpDepositController } from './idempotent-http-deposit.controller';
import { PlainHttpDepositController } from './plain-http-deposit.controller';
import { type RedisBalances } from './redis-balances';

/**
 * Which HTTP peer: `node-idempotency` (`@node-idempotency/nestjs` with its
 * Redis storage) or `plain` (no idempotency, the baseline). A once HTTP peer
 * is a third kind, added where the bench starts peers.
 */
export type HttpPeerKind = 'node-idempotency' | 'plain';

/** An HTTP peer's whole service: the deposit controller of its kind over Redis balances. */
@Module({})
export class HttpDepositPeerModule implements OnApplicationShutdown {
  constructor(@Inject(HTTP_BALANCES) private readonly balances: RedisBalances) {}

  static create(kind: HttpPeerKind, balances: RedisBalances, redisPort: number): DynamicModule {
    const balancesProvider = { provide: HTTP_BALANCES, useValue: balances };
    if (kind === 'plain') {
      return {
        module: HttpDepositPeerModule,
        controllers: [PlainHttpDepositController],
        providers: [balancesProvider],
      };
    }
    return {
      module: HttpDepositPeerModule,
      imports: [
        NodeIdempotencyModule.forRootAsync({
          storage: {
            adapter: StorageAdapterEnum.redis,
            options: { url: `redis://127.0.0.1:${redisPort}` },
          },
        }),
      ],
      controllers: [IdempotentHttpDepositController],
      providers: [balancesProvider],
    };
  }

  onApplicationShutdown(): Promise<void> {
    return this.balances.close();
  }
}
