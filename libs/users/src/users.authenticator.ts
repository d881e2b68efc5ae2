import { Injectable } from '@nestjs/common';
import { type OnceAuthenticator } from '@once/framework';
import { PasswordHasher } from './password-hasher';
import { UsersState } from './users.state';

/** A fixed salt/hash pair so unknown usernames cost the same scrypt as known ones. */
const DECOY = {
  salt: '00000000000000000000000000000000',
  hash: '0000000000000000000000000000000000000000000000000000000000000000',
};

/** REGISTER credentials against the users module's scrypt hashes. */
@Injectable()
export class UsersAuthenticator implements OnceAuthenticator {
  private readonly hasher = new PasswordHasher();

  constructor(private readonly users: UsersState) {}

  async authenticate(username: string, password: string): Promise<number | undefined> {
    const user = this.users.byUsername(username);
    const valid = await this.hasher.verify(password, user ?? DECOY);
    return valid && user && !user.disabled ? user.id : undefined;
  }
}
