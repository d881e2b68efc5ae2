import { type DynamicModule, Module, type OnApplicationShutdown } from '@nestjs/common';
import { DepositController } from './deposit.controller';
import { DEPOSIT_STORE, type DepositStore } from './deposit-store';

/** A durable peer's whole service: the deposit handler over a connected store. */
@Module({})
export class DepositPeerModule {
  static withStore(store: DepositStore): DynamicModule {
    return {
      module: DepositPeerModule,
      controllers: [DepositController],
      providers: [
        { provide: DEPOSIT_STORE, useValue: store },
        {
          provide: 'DepositStoreCloser',
          useValue: {
            onApplicationShutdown: () => store.close(),
          } satisfies OnApplicationShutdown,
        },
      ],
    };
  }
}
