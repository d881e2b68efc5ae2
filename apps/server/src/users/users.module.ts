import { Module } from '@nestjs/common';
import { ONCE_AUTHENTICATOR } from '@once/framework';
import { UsersAuthenticator } from './users.authenticator';
import { UsersController } from './users.controller';
import { UsersState } from './users.state';

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
