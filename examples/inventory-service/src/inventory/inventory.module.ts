import { Module } from '@nestjs/common';
import { InventoryController } from './inventory.controller';
import { InventoryState } from './inventory.state';
import { OPEN_WAREHOUSES, openWarehousesFrom } from './open-warehouses';
import { WarehouseGuard } from './warehouse.guard';

/**
 * The inventory, exactly once: an ordinary NestJS module. Importing it next
 * to `OnceModule.forRoot` is all it takes; once finds the `@Command` and
 * `@Query` handlers and the `@ReplicatedState` by itself.
 */
@Module({
  controllers: [InventoryController],
  providers: [
    InventoryState,
    WarehouseGuard,
    { provide: OPEN_WAREHOUSES, useFactory: () => openWarehousesFrom(process.env) },
  ],
})
export class InventoryModule {}
