import { Module } from '@nestjs/common';
import { LedgerController } from './ledger.controller';
import { LedgerState } from './ledger.state';

@Module({
  controllers: [LedgerController],
  providers: [LedgerState],
  exports: [LedgerState],
})
export class LedgerModule {}
