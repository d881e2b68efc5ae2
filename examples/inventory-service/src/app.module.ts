import { type DynamicModule, Module } from '@nestjs/common';
import { OnceModule } from '@once/framework';
import { CallersModule } from './callers/callers.module';
import { InventoryModule } from './inventory/inventory.module';

/** Where the service keeps its journal, snapshots and node secret. */
export interface AppOptions {
  /** A LevelDB data directory, used by one process at a time. */
  readonly dataDir: string;
}

/** The inventory service: the once runtime, who may call, and the inventory. */
@Module({})
export class AppModule {
  static forRoot(options: AppOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [OnceModule.forRoot({ dataDir: options.dataDir }), CallersModule, InventoryModule],
    };
  }
}
