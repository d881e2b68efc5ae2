/**
 * The public API of `@once/users`: `UsersModule`, its state and
 * authenticator, the scrypt `PasswordHasher`, and `adminGenesis`.
 *
 * @packageDocumentation
 * @public
 */
export { UsersModule } from './users.module';
export { type AdminGenesisOptions, adminGenesis } from './admin-genesis';
export { UsersState, type UserRecord } from './users.state';
export { UsersAuthenticator } from './users.authenticator';
export { PasswordHasher, type PasswordHash } from './password-hasher';
