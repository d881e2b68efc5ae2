import { type DynamicModule, Module } from '@nestjs/common';
import { OnceModule, type OnceModuleOptions } from '@once/framework';
import { UsersModule, adminGenesis } from '@once/users';
import { GroupsModule } from './groups/groups.module';
import { LedgerModule } from './ledger/ledger.module';
import { LedgerHttpModule } from './http/ledger-http.module';
import { StreamsModule } from './streams/streams.module';
import { OperationsHttpModule } from './operations/operations-http.module';
import { type OperationsHttpOptions } from './operations/operations-http.server';

/** The reference service's domain: the modules of DESIGN.md's table. */
export const DOMAIN_MODULES = [
  UsersModule,
  StreamsModule,
  GroupsModule,
  LedgerModule,
  LedgerHttpModule,
];

/**
 * The root module, with the once runtime configured by `options`, and the
 * metrics and health listener when `operations` says where.
 */
@Module({})
export class AppModule {
  static register(options: OnceModuleOptions, operations?: OperationsHttpOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        OnceModule.forRoot(options),
        ...DOMAIN_MODULES,
        ...(operations ? [OperationsHttpModule.register(operations)] : []),
      ],
    };
  }
}

/** Genesis of a new data directory: the administrator (from `@once/users`). */
export { adminGenesis };
