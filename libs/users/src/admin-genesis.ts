import { type OnceModuleOptions } from '@once/framework';

/**
 * The genesis of a new data directory that holds users: `users.create` of
 * `admin`, run once by the node itself when the directory is created. The
 * first user ever created is the administrator (id 1), so this is the only
 * way an administrator comes to exist; pass it as `OnceModule.forRoot({ genesis })`.
 * The password is hashed at admission like any other: the journal never
 * holds it in plain text.
 */
export function adminGenesis(
  adminPassword: string,
  options: AdminGenesisOptions = {},
): OnceModuleOptions['genesis'] {
  return [
    {
      pattern: 'users.create',
      data: { username: 'admin', password: adminPassword },
      label: 'user admin',
      ...(options.warning === undefined ? {} : { warning: options.warning }),
    },
  ];
}

export interface AdminGenesisOptions {
  /**
   * Logged when the genesis creates the user (a new data directory only),
   * e.g. that the password is a default one. Default: none.
   */
  readonly warning?: string;
}
