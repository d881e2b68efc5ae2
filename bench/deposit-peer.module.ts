import { type DynamicModule, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { DepositController } from './deposit.controller';
import { DEPOSIT_STORE, type DepositStore } from './deposit-store';

/**
 * A durable peer's whole service: the deposit handler over a store the
 * entry connected (and created the schema of) before Nest started; the
 * store's connections close with the application.
 */
@Module({})
export class DepositPeerModule implements OnApplicationShutdown {
  constructor(@Inject(DEPOSIT_STORE) private readonly store: DepositStore) {}

  static withStore(store: DepositStore): DynamicModule {
    return {
      module: DepositPeerModule,
      controllers: [DepositController],
      providers: [{ provide: DEPOSIT_STORE, useValue: store }],
    };
  }

  onApplicationShutdown(): Promise<void> {
    return this.store.close();
  }
}
