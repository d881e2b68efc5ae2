import { Module } from '@nestjs/common';
import { ONCE_AUTHENTICATOR } from '@once/framework';
import { UsersAuthenticator } from './users.authenticator';
import { UsersController } from './users.controller';
import { UsersState } from './users.state';

/**
 * Users with scrypt password hashes, replicated through the journal like any
 * other module state, and the authenticator REGISTER checks them with.
 * Import it next to `OnceModule.forRoot({ genesis: adminGenesis(password) })`:
 * the genesis creates the administrator, who then creates users with the
 * command `users.create {username, password}`; every user changes their own
 * password with `users.changePassword {currentPassword, newPassword}`.
 *
 * It provides `ONCE_AUTHENTICATOR`; a service that checks credentials some
 * other way provides its own `ONCE_AUTHENTICATOR` and does not import this
 * module. Limits on failed REGISTERs are the gateway's settings (`OnceServer`
 * options `registerFailuresPerAddressPerMinuteMax`,
 * `registerFailuresPerConnectionMax`), not this module's.
 */
@Module({
  controllers: [UsersController],
  providers: [
    UsersState,
    UsersAuthenticator,
    { provide: ONCE_AUTHENTICATOR, useExisting: UsersAuthenticator },
  ],
  exports: [UsersState, ONCE_AUTHENTICATOR],
})
export class UsersModule {}
