import { type DynamicModule, Module } from '@nestjs/common';
import { ClientsModule } from '@nestjs/microservices';
import { OnceClientProxy, type OnceClientProxyOptions } from '@once/nest-client';
import { INVENTORY, OrdersService } from './orders.service';

/** How the orders app reaches the inventory service: address, account, reconnect policy. */
export type InventoryConnection = OnceClientProxyOptions;

/**
 * The orders app: another team's NestJS application that calls the
 * inventory. The inventory client is an ordinary NestJS `ClientProxy`,
 * registered under the `INVENTORY` token. `OnceClientProxy` sends a pattern
 * the inventory lists as a `@Query` as a read, and every other one as a
 * command, applied exactly once.
 */
@Module({})
export class OrdersModule {
  static forRoot(inventory: InventoryConnection): DynamicModule {
    return {
      module: OrdersModule,
      imports: [
        ClientsModule.register([
          { name: INVENTORY, customClass: OnceClientProxy, options: inventory },
        ]),
      ],
      providers: [OrdersService],
      exports: [OrdersService],
    };
  }
}
