import { Controller } from '@nestjs/common';
import {
  type AdmissionContext,
  Admit,
  type ApplyContext,
  Command,
  CommandError,
  SYSTEM_USER_ID,
} from '@once/framework';
import { PasswordHasher } from './password-hasher';
import { UsersState } from './users.state';

interface CreateUserRequest {
  username: string;
  password: string;
}
/** What `users.create` journals: the password is already a salted hash. */
interface CreateUserEntry {
  username: string;
  salt: string;
  hash: string;
}
interface ChangePasswordRequest {
  currentPassword: string;
  newPassword: string;
}
/** What `users.changePassword` journals: hashes only. */
interface ChangePasswordEntry {
  /** scrypt of the current password under the user's salt at admission ('' if none). */
  currentHash: string;
  salt: string;
  hash: string;
}

const USERNAME_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

@Controller()
export class UsersController {
  private readonly hasher = new PasswordHasher();

  constructor(private readonly users: UsersState) {}

  // The body holds a password: the journal keeps no checksum of it (only the salted hash).
  @Admit('users.create', { secretBody: true })
  async admitCreate(data: unknown): Promise<CreateUserEntry> {
    const { username, password } = asRecord(data) as Partial<CreateUserRequest>;
    if (typeof username !== 'string' || typeof password !== 'string') {
      throw new CommandError(
        'INVALID_ARGUMENT',
        'users.create takes {username: string, password: string}',
      );
    }
    return { username, ...(await this.hasher.hash(password)) };
  }

  // Shown by the journal feed with these redacted: the password as sent (before any
  // @Admit step replaces it), and the salt and hash that stand for it once admitted.
  @Command('users.create', { sensitive: ['password', 'salt', 'hash'] })
  create(data: CreateUserEntry, ctx: ApplyContext): { userId: number } {
    const caller = this.users.get(ctx.userId);
    if (ctx.userId !== SYSTEM_USER_ID && !caller?.admin) {
      throw new CommandError('FORBIDDEN', 'only an administrator creates users');
    }
    if (!USERNAME_PATTERN.test(data.username)) {
      throw new CommandError(
        'INVALID_ARGUMENT',
        'a username is 1 to 64 letters, digits, dots, dashes or underscores',
      );
    }
    if (this.users.byUsername(data.username)) {
      throw new CommandError('USER_EXISTS', `user "${data.username}" exists`);
    }
    return { userId: this.users.add(data.username, data.salt, data.hash).id };
  }

  @Admit('users.changePassword', { secretBody: true })
  async admitChangePassword(data: unknown, ctx: AdmissionContext): Promise<ChangePasswordEntry> {
    const { currentPassword, newPassword } = asRecord(data) as Partial<ChangePasswordRequest>;
    if (typeof currentPassword !== 'string' || typeof newPassword !== 'string') {
      throw new CommandError(
        'INVALID_ARGUMENT',
        'users.changePassword takes {currentPassword: string, newPassword: string}',
      );
    }
    // The current password is checked at apply, against the hash in force then:
    // admission only hashes it under the user's salt, so no plaintext is journaled
    // and a concurrent change is judged in journal order.
    const user = this.users.get(ctx.userId);
    const currentHash = user ? await this.hasher.derive(currentPassword, user.salt) : '';
    return { currentHash, ...(await this.hasher.hash(newPassword)) };
  }

  @Command('users.changePassword', {
    sensitive: ['currentPassword', 'newPassword', 'currentHash', 'salt', 'hash'],
  })
  changePassword(data: ChangePasswordEntry, ctx: ApplyContext): Record<string, never> {
    const user = this.users.get(ctx.userId);
    if (!user || user.disabled || data.currentHash !== user.hash) {
      throw new CommandError('INVALID_CREDENTIALS', 'the current password is wrong');
    }
    user.salt = data.salt;
    user.hash = data.hash;
    return {};
  }
}

function asRecord(data: unknown): Record<string, unknown> {
  return typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
}
