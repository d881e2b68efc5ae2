import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { OnceClient } from '@once/sdk';
import { ServiceProcess } from '@once/testing';

/** A user of the inventory: a service that calls it, with its password. */
export interface Account {
  readonly username: string;
  readonly password: string;
}

/** The goods-receiving app (adds stock) and the orders app (reserves it). */
export const RECEIVING: Account = { username: 'receiving', password: newPassword() };
export const ORDERS: Account = { username: 'orders', password: newPassword() };

/** {@link RECEIVING} and {@link ORDERS}, as the `users` of a service `@once/testing` assembles. */
export const INVENTORY_USERS: Readonly<Record<string, string>> = Object.fromEntries(
  [RECEIVING, ORDERS].map((account) => [account.username, account.password]),
);

const ADMIN: Account = { username: 'admin', password: newPassword() };
const SOURCES = join(__dirname, '..', '..', 'src');

/**
 * The inventory module alone, as a service assembled by `@once/testing`
 * (`OnceModule` and a test authenticator that knows {@link RECEIVING} and
 * {@link ORDERS}), on a fresh temporary data directory. For the module's own
 * scenarios: it does not need the users module.
 */
export function startInventoryModule(
  env: Readonly<Record<string, string>> = {},
): Promise<ServiceProcess> {
  return ServiceProcess.start({
    modules: [
      { path: join(SOURCES, 'inventory', 'inventory.module.ts'), export: 'InventoryModule' },
    ],
    users: INVENTORY_USERS,
    env: { INVENTORY_WAREHOUSES: 'berlin,lyon', ...env },
  });
}

/**
 * The service as it is deployed: its own `src/main.ts` (run through the
 * TypeScript hook of `@once/testing`), with its users module, on a fresh
 * temporary data directory. The admin then creates {@link RECEIVING} and
 * {@link ORDERS}, as an operator would.
 */
export async function startInventoryService(
  env: Readonly<Record<string, string>> = {},
): Promise<ServiceProcess> {
  const service = await ServiceProcess.start({
    entry: join(SOURCES, 'main.ts'),
    env: { ONCE_ADMIN_PASSWORD: ADMIN.password, ...env },
  });
  const admin = await connectAs(ADMIN, service.port);
  try {
    for (const { username, password } of [RECEIVING, ORDERS]) {
      await admin.command('users.create', { username, password });
    }
  } finally {
    await admin.close({ logout: true });
  }
  return service;
}

/** A client of the inventory; it reconnects quickly, as a test wants after a restart. */
export function connectAs(
  account: Account,
  port: number,
  options: { inFlightMax?: number } = {},
): Promise<OnceClient> {
  return OnceClient.connect({
    port,
    username: account.username,
    password: account.password,
    reconnect: { initialDelayMs: 10, delayMsMax: 200 },
    ...options,
  });
}

/** A SKU no other test touches, so every scenario starts from zero stock. */
export function freshSku(): string {
  return `sku-${randomBytes(4).toString('hex')}`;
}

function newPassword(): string {
  return randomBytes(16).toString('hex');
}
