import { OnceClient } from '@once/sdk';

/**
 * Gives a service an account on the inventory, as the admin:
 *
 *     ONCE_ADMIN_PASSWORD=… NEW_USER_PASSWORD=… node dist/admin/create-user.js orders
 *
 * `users.create` is a command like any other: journaled, applied once, and
 * its password is hashed (scrypt) before it is journaled. Settings:
 * `INVENTORY_HOST` (default 127.0.0.1), `INVENTORY_PORT` (default 7700).
 * Exits 0 with the new user's id, 1 if it is refused (USER_EXISTS, …).
 */
async function main(): Promise<void> {
  const [username] = process.argv.slice(2);
  const adminPassword = process.env.ONCE_ADMIN_PASSWORD;
  const password = process.env.NEW_USER_PASSWORD;
  if (!username || !adminPassword || !password) {
    throw new Error('usage: ONCE_ADMIN_PASSWORD=… NEW_USER_PASSWORD=… create-user.js <username>');
  }
  const admin = await OnceClient.connect({
    host: process.env.INVENTORY_HOST ?? '127.0.0.1',
    port: Number(process.env.INVENTORY_PORT ?? 7700),
    username: 'admin',
    password: adminPassword,
  });
  try {
    const created = await admin.command<{ userId: number }>('users.create', {
      username,
      password,
    });
    console.log(`user ${username} created, id ${created.userId}`);
  } finally {
    // Log out: this one-shot session would otherwise stay in the client table.
    await admin.close({ logout: true });
  }
}

main().catch((error: unknown) => {
  console.error('create-user:', error instanceof Error ? error.message : error);
  process.exit(1);
});
