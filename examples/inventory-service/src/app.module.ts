import { type DynamicModule, Module } from '@nestjs/common';
import { OnceModule } from '@once/framework';
import { UsersModule, adminGenesis } from '@once/users';
import { InventoryModule } from './inventory/inventory.module';

/** What the service needs to know before it starts. */
export interface AppOptions {
  /** A LevelDB data directory, used by one process at a time. */
  readonly dataDir: string;
  /**
   * Password of the user `admin`, created with a new data directory (and only
   * then: afterwards it is a user like any other, whose password changes with
   * `users.changePassword`). The admin creates the services' accounts.
   */
  readonly adminPassword: string;
}

/**
 * The inventory service: the once runtime, the users who may open sessions
 * (scrypt hashes, replicated like any state), and the inventory.
 */
@Module({})
export class AppModule {
  static forRoot(options: AppOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        OnceModule.forRoot({
          dataDir: options.dataDir,
          genesis: adminGenesis(options.adminPassword),
        }),
        UsersModule,
        InventoryModule,
      ],
    };
  }
}
