import { Module } from '@nestjs/common';
import { ONCE_AUTHENTICATOR } from '@once/framework';
import { callerAccountsFrom } from './caller-accounts';
import { CALLER_ACCOUNTS, CallerAuthenticator } from './caller-authenticator';

/**
 * Who may open a session with the inventory: the services listed in
 * `INVENTORY_CALLERS`. once asks the provider of `ONCE_AUTHENTICATOR` to
 * check every REGISTER; without one, every REGISTER is refused.
 */
@Module({
  providers: [
    { provide: CALLER_ACCOUNTS, useFactory: () => callerAccountsFrom(process.env) },
    CallerAuthenticator,
    { provide: ONCE_AUTHENTICATOR, useExisting: CallerAuthenticator },
  ],
  exports: [ONCE_AUTHENTICATOR],
})
export class CallersModule {}
