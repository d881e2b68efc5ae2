import { type DynamicModule, Module } from '@nestjs/common';
import { ClientsModule } from '@nestjs/microservices';
import { OnceClientProxy, type OnceClientProxyOptions } from '@once/nest-client';
import { INVENTORY, OrdersService } from './orders.service';

/** How the orders app reaches the inventory service. */
export type InventoryConnection = Omit<OnceClientProxyOptions, 'queries'>;

/**
 * The orders app: another team's NestJS application that calls the
 * inventory. The inventory client is an ordinary NestJS `ClientProxy`,
 * registered under the `INVENTORY` token; `OnceClientProxy` makes each of its
 * `send`s exactly once.
 */
@Module({})
export class OrdersModule {
  static forRoot(inventory: InventoryConnection): DynamicModule {
    return {
      module: OrdersModule,
      imports: [
        ClientsModule.register([
          {
            name: INVENTORY,
            customClass: OnceClientProxy,
            // Every other pattern is a command, journaled and applied exactly once.
            options: { ...inventory, queries: ['inventory.stock'] },
          },
        ]),
      ],
      providers: [OrdersService],
      exports: [OrdersService],
    };
  }
}
