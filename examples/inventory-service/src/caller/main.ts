import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { OrdersModule } from './orders.module';
import { OrdersService } from './orders.service';

/**
 * Places one order from the command line:
 *
 *     INVENTORY_PASSWORD=<the orders secret> node dist/caller/main.js <orderId> <warehouse> <sku> <quantity>
 *
 * Settings: `INVENTORY_HOST` (default 127.0.0.1), `INVENTORY_PORT` (default
 * 7700), `INVENTORY_USERNAME` (default orders), `INVENTORY_PASSWORD`
 * (required). Prints what became of the order as JSON.
 */
async function main(): Promise<void> {
  const [orderId, warehouse, sku, quantity] = process.argv.slice(2);
  if (!orderId || !warehouse || !sku || !quantity) {
    throw new Error('usage: main.js <orderId> <warehouse> <sku> <quantity>');
  }
  const password = process.env.INVENTORY_PASSWORD;
  if (!password) throw new Error('INVENTORY_PASSWORD is not set');
  const app = await NestFactory.createApplicationContext(
    OrdersModule.forRoot({
      host: process.env.INVENTORY_HOST ?? '127.0.0.1',
      port: Number(process.env.INVENTORY_PORT ?? 7700),
      username: process.env.INVENTORY_USERNAME ?? 'orders',
      password,
    }),
    { logger: ['error', 'warn'] },
  );
  try {
    const placed = await app
      .get(OrdersService)
      .place({ orderId, warehouse, sku, quantity: Number(quantity) });
    console.log(JSON.stringify(placed));
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  // once's errors carry a stable code (a refusal's is the inventory's own): print it first.
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  console.error(`orders: cannot place the order: ${code ? `${code}: ` : ''}${message ?? ''}`);
  process.exit(1);
});
