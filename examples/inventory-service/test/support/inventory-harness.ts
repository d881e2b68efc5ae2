import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { OnceClient } from '@once/sdk';
import { ServiceProcess } from '@once/testing';

/** A service allowed to call the inventory, with the secret it was handed. */
export interface Caller {
  readonly username: string;
  readonly userId: number;
  readonly secret: string;
}

/** The goods-receiving app (adds stock) and the orders app (reserves it). */
export const RECEIVING: Caller = { username: 'receiving', userId: 1, secret: newSecret() };
export const ORDERS: Caller = { username: 'orders', userId: 2, secret: newSecret() };

/** `INVENTORY_CALLERS` for {@link RECEIVING} and {@link ORDERS}: hashes only. */
export const CALLERS_SETTING = JSON.stringify(
  Object.fromEntries(
    [RECEIVING, ORDERS].map(({ username, userId, secret }) => [
      username,
      { userId, secretSha256: createHash('sha256').update(secret).digest('hex') },
    ]),
  ),
);

const SOURCES = join(__dirname, '..', '..', 'src');

/**
 * Starts the inventory service as a child process on a fresh temporary data
 * directory, made of the team's own modules (what `AppModule` imports besides
 * `OnceModule`, which the harness provides). `crash()` SIGKILLs it,
 * `restart()` starts it again on the same directory and port.
 */
export function startInventory(
  env: Readonly<Record<string, string>> = {},
): Promise<ServiceProcess> {
  return ServiceProcess.start({
    modules: [
      { path: join(SOURCES, 'callers', 'callers.module.ts'), export: 'CallersModule' },
      { path: join(SOURCES, 'inventory', 'inventory.module.ts'), export: 'InventoryModule' },
    ],
    env: { INVENTORY_CALLERS: CALLERS_SETTING, INVENTORY_WAREHOUSES: 'berlin,lyon', ...env },
  });
}

/** A client of the inventory; it reconnects quickly, as a test wants after a restart. */
export function connectAs(
  caller: Caller,
  port: number,
  options: { maxInFlight?: number } = {},
): Promise<OnceClient> {
  return OnceClient.connect({
    port,
    username: caller.username,
    password: caller.secret,
    reconnect: { initialDelayMs: 10, maxDelayMs: 200 },
    ...options,
  });
}

/** A SKU no other test touches, so every scenario starts from zero stock. */
export function freshSku(): string {
  return `sku-${randomBytes(4).toString('hex')}`;
}

function newSecret(): string {
  return randomBytes(32).toString('hex');
}
