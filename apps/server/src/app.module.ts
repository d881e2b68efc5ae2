import { type DynamicModule, Module } from '@nestjs/common';
import { OnceModule, type OnceModuleOptions } from '@once/framework';
import { UsersModule, adminGenesis } from '@once/users';
import { GroupsModule } from './groups/groups.module';
import { LedgerModule } from './ledger/ledger.module';
import { StreamsModule } from './streams/streams.module';

/** The reference service's domain: the modules of DESIGN.md's table. */
export const DOMAIN_MODULES = [UsersModule, StreamsModule, GroupsModule, LedgerModule];

/** The root module, with the once runtime configured by `options`. */
@Module({})
export class AppModule {
  static register(options: OnceModuleOptions): DynamicModule {
    return { module: AppModule, imports: [OnceModule.forRoot(options), ...DOMAIN_MODULES] };
  }
}

/** Genesis of a new data directory: the administrator (from `@once/users`). */
export { adminGenesis };
