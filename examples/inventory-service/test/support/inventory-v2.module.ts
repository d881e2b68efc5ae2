import { Controller, Module, type Type, UseGuards } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { type ApplyContext, Command, CommandError, ReplicatedState } from '@once/framework';
import { InventoryController, type StockReserved } from '../../src/inventory/inventory.controller';
import { reserveStockOf } from '../../src/inventory/inventory.requests';
import { InventoryState } from '../../src/inventory/inventory.state';
import { OPEN_WAREHOUSES, openWarehousesFrom } from '../../src/inventory/open-warehouses';
import { WarehouseGuard } from '../../src/inventory/warehouse.guard';

/**
 * The inventory's next release, as the team tries it before deploying it: an
 * order may reserve at most {@link ORDER_LIMIT} units of a SKU; more is
 * refused `ORDER_LIMIT_EXCEEDED`. A reservation the service accepted before
 * is refused by the new rule, so the change needs a version bump. Two builds
 * of it, both reusing the example's own state, guard and handlers:
 *
 * - {@link InventoryWithLimitUnbumpedModule}: the rule changed, the version left
 *   at 1 (the mistake a replay catches);
 * - {@link InventoryV2Module}: `@ReplicatedState('inventory', { version: 2 })`,
 *   and the rule only where `ctx.version >= 2`.
 */

/** Units one order may reserve of a SKU, from the release on. */
export const ORDER_LIMIT = 5;

/** The inventory state at version 2: the same state and snapshot, a new version of its rules. */
@ReplicatedState('inventory', { version: 2 })
export class InventoryStateV2 extends InventoryState {}

/**
 * The inventory module with `inventory.reserve` changed: `state` is the state
 * class it provides (it declares the version), `limited` says whether an
 * entry applies under the new rule. `inventory.add` and `inventory.stock`
 * are the example's, inherited.
 */
function inventoryWithOrderLimit(
  state: Type<InventoryState>,
  limited: (ctx: ApplyContext) => boolean,
): Type {
  @Controller()
  class InventoryWithLimitController extends InventoryController {
    constructor(private readonly inventoryState: InventoryState) {
      super(inventoryState);
    }

    /**
     * The reservation as the release changes it in inventory.controller.ts:
     * the example's checks and effect, with the limit checked first when the
     * entry applies under it. (An override cannot call `super.reserve`: the
     * name holds the admission step @Command puts in front of the handler.
     * And it declares its parameters: without `@Payload()` and `@Ctx()` it
     * would take the parameter layout NestJS recorded for the inherited
     * method, and be applied without its `ctx`.)
     */
    @UseGuards(WarehouseGuard)
    @Command('inventory.reserve')
    override reserve(@Payload() data: unknown, @Ctx() ctx: ApplyContext): StockReserved {
      const { orderId, warehouse, sku, quantity } = reserveStockOf(data);
      if (limited(ctx) && quantity > ORDER_LIMIT) {
        throw new CommandError(
          'ORDER_LIMIT_EXCEEDED',
          `an order reserves at most ${ORDER_LIMIT} units of a SKU, ${quantity} asked`,
        );
      }
      if (this.inventoryState.reservedUnder(orderId)) {
        throw new CommandError('ORDER_ID_REUSED', `order ${orderId} has reserved stock already`);
      }
      const available = this.inventoryState.availableOf(warehouse, sku);
      if (available < quantity) {
        throw new CommandError(
          'INSUFFICIENT_STOCK',
          `${quantity} of ${sku} asked at ${warehouse}, ${available} available`,
        );
      }
      const left = this.inventoryState.reserve(orderId, { warehouse, sku, quantity });
      return { orderId, warehouse, sku, quantity, available: left, reservation: ctx.op };
    }
  }

  @Module({
    controllers: [InventoryWithLimitController],
    providers: [
      { provide: InventoryState, useClass: state },
      WarehouseGuard,
      { provide: OPEN_WAREHOUSES, useFactory: () => openWarehousesFrom(process.env) },
    ],
  })
  class InventoryWithLimitModule {}
  return InventoryWithLimitModule;
}

/** The limit on every entry, version still 1: the acknowledged replies no longer replay. */
export const InventoryWithLimitUnbumpedModule = inventoryWithOrderLimit(InventoryState, () => true);

/** Version 2, the limit from version 2 on: entries journaled under version 1 keep the old rule. */
export const InventoryV2Module = inventoryWithOrderLimit(
  InventoryStateV2,
  (ctx) => ctx.version >= 2,
);
