import { Module } from '@nestjs/common';
import { UsersModule } from '@once/users';
import { LedgerModule } from '../ledger/ledger.module';
import { BasicAuthGuard } from './basic-auth.guard';
import { LedgerHttpController } from './ledger-http.controller';

/**
 * The ledger's HTTP API. Part of the application whether or not an HTTP port
 * is set: its routes are commands of the code manifest, which must not
 * change with a listener setting. Served only when `ONCE_HTTP_PORT` is set.
 */
@Module({
  imports: [LedgerModule, UsersModule],
  controllers: [LedgerHttpController],
  providers: [BasicAuthGuard],
})
export class LedgerHttpModule {}
